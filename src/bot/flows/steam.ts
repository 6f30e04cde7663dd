import { formatRub } from "../format/money.js";
import { LIMITS, parseSteamLogin, parseWholeNumber } from "../validate.js";
import type { FlowDef } from "./kit.js";
import { type Step, settle } from "./steps.js";

export const STEAM_PRESETS = [100, 250, 500, 1000, 2500, 5000] as const;

/** "500 ₽", "500 руб.", "500 rub" → "500". */
export function stripRoubleSign(text: string): string {
  return text.replace(/\s*(₽|руб\.?|р\.?|rub|rur)\s*$/iu, "");
}

interface SteamState {
  login?: string;
  amount?: number;
}

/** Steam top-up: the game-platform login, then an amount in roubles (50..50,000). */
export function createSteamFlow(): FlowDef<SteamState> {
  const login: Step<SteamState> = {
    id: "login",
    fields: ["recipient_username"],
    async run(f, state) {
      const a = await f.ask<string>({ text: f.t("ask-steam-login"), parse: parseSteamLogin });
      return settle(a, (v) => {
        state.login = v;
      });
    },
  };
  const amount: Step<SteamState> = {
    id: "amount",
    fields: ["quantity"],
    async run(f, state) {
      const a = await f.ask<number>({
        text: f.t("ask-steam-amount", {
          min: formatRub(LIMITS.steam.min * 100, f.locale),
          max: formatRub(LIMITS.steam.max * 100, f.locale),
        }),
        choices: STEAM_PRESETS.map((n) => ({ label: formatRub(n * 100, f.locale), value: n })),
        columns: 3,
        parse: (text) => parseWholeNumber(stripRoubleSign(text), LIMITS.steam.min, LIMITS.steam.max),
      });
      return settle(a, (v) => {
        state.amount = v;
      });
    },
  };
  const steps = [login, amount];
  return {
    kind: "steam",
    initial: (): SteamState => ({}),
    steps: () => steps,
    build: (s) => ({ kind: "steam", product: "steam", recipient: s.login, quantity: s.amount }),
  };
}
