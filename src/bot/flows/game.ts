import { itemRef } from "../../orders/price-settings.js";
import type { Game, GamePackage, GameRegion } from "../../reseller/types.js";
import { escapeHtml } from "../format/html.js";
import { fieldLabel } from "../format/item.js";
import { LIMITS, parseFieldValue, parseWholeNumber } from "../validate.js";
import type { FlowDef } from "./kit.js";
import { type Step, settle } from "./steps.js";

export const GAME_ITEMS_PER_PAGE = 8;
export const GAME_QUANTITY_PRESETS = [1, 2, 3, 5, 10] as const;

interface GameState {
  game?: Pick<Game, "key" | "title">;
  region?: Pick<GameRegion, "code" | "title">;
  delivery?: "codes" | "topup";
  fieldKeys?: string[];
  pkg?: Pick<GamePackage, "productRef" | "title">;
  quantity?: number;
  fields: Record<string, string>;
}

/** Games: game → region → package (paged) → quantity 1..10 → one question per top-up field. */
export function createGameFlow(): FlowDef<GameState> {
  const game: Step<GameState> = {
    id: "game",
    fields: [],
    async run(f, state) {
      const games = await f.load((c) => c.games());
      if (games === undefined) return "abort";
      if (games.length === 0) {
        await f.show(f.t("game-none"));
        return "abort";
      }
      const a = await f.ask({
        text: f.t("ask-game"),
        choices: games.map((g) => ({ label: g.title, value: { key: g.key, title: g.title } })),
        columns: 2,
        pageSize: GAME_ITEMS_PER_PAGE,
      });
      return settle(a, (v) => {
        if (state.game?.key !== v.key) state.region = undefined;
        state.game = v;
      });
    },
  };
  const region: Step<GameState> = {
    id: "region",
    fields: [],
    async run(f, state) {
      const key = state.game?.key ?? "";
      const regions = await f.load((c) => c.gameRegions(key));
      if (regions === undefined) return "abort";
      if (regions.length === 0) {
        f.notice = `⚠️ ${f.t("game-no-regions")}`;
        return "back";
      }
      const a = await f.ask({
        text: f.t("ask-game-region", { game: escapeHtml(state.game?.title ?? "") }),
        choices: regions.map((r) => ({ label: r.title, value: { code: r.code, title: r.title } })),
        columns: 2,
        pageSize: GAME_ITEMS_PER_PAGE,
      });
      return settle(a, (v) => {
        state.region = v;
      });
    },
  };
  const pkg: Step<GameState> = {
    id: "package",
    fields: ["product_ref"],
    async run(f, state) {
      const g = state.game?.key ?? "";
      const r = state.region?.code ?? "";
      const catalog = await f.load((c) => c.gamePackages(g, r));
      if (catalog === undefined) return "abort";
      if (catalog.packages.length === 0) {
        f.notice = `⚠️ ${f.t("game-no-packages")}`;
        return "back";
      }
      const a = await f.ask({
        text: f.t("ask-game-package", {
          game: escapeHtml(state.game?.title ?? ""),
          region: escapeHtml(state.region?.title ?? ""),
        }),
        choices: catalog.packages.map((p) => ({
          label: f.t("package-label", {
            title: p.title,
            price: f.price(p.wholesalePriceRub, itemRef({ kind: "game", productRef: p.productRef })),
          }),
          value: { productRef: p.productRef, title: p.title },
        })),
        pageSize: GAME_ITEMS_PER_PAGE,
      });
      return settle(a, (v) => {
        state.pkg = v;
        state.delivery = catalog.delivery;
        state.fieldKeys = catalog.delivery === "topup" ? catalog.fields : [];
      });
    },
  };
  const quantity: Step<GameState> = {
    id: "quantity",
    fields: ["quantity"],
    async run(f, state) {
      const a = await f.ask<number>({
        text: f.t("ask-game-quantity", { min: LIMITS.gameQuantity.min, max: LIMITS.gameQuantity.max }),
        choices: GAME_QUANTITY_PRESETS.map((n) => ({ label: String(n), value: n })),
        columns: 5,
        parse: (text) => parseWholeNumber(text, LIMITS.gameQuantity.min, LIMITS.gameQuantity.max),
      });
      return settle(a, (v) => {
        state.quantity = v;
      });
    },
  };
  const fieldStep = (key: string): Step<GameState> => ({
    id: `field:${key}`,
    fields: [`fields.${key}`, "fields"],
    async run(f, state) {
      const a = await f.ask<string>({
        text: f.t("ask-game-field", { field: escapeHtml(fieldLabel(key, f.t)) }),
        parse: parseFieldValue,
      });
      return settle(a, (v) => {
        state.fields[key] = v;
      });
    },
  });
  return {
    kind: "game",
    initial: (): GameState => ({ fields: {} }),
    steps: (s) => [game, region, pkg, quantity, ...(s.fieldKeys ?? []).map(fieldStep)],
    build: (s) => ({
      kind: "game",
      product: "game",
      productRef: s.pkg?.productRef,
      quantity: s.quantity,
      fields:
        s.delivery === "topup"
          ? Object.fromEntries((s.fieldKeys ?? []).map((k) => [k, s.fields[k] ?? ""]))
          : undefined,
      title: [s.game?.title, s.region?.title, s.pkg?.title].filter(Boolean).join(" · "),
      game: s.game?.key,
      region: s.region?.code,
    }),
  };
}
