import { itemRef } from "../../orders/price-settings.js";
import type { NeuralItem } from "../../reseller/types.js";
import type { FlowDef } from "./kit.js";
import { type Step, settle } from "./steps.js";

export const NEURAL_PER_PAGE = 8;

interface NeuralState {
  item?: Pick<NeuralItem, "code" | "title" | "emoji">;
}

/** AI services: one item of the neural catalog; no recipient. */
export function createNeuralFlow(): FlowDef<NeuralState> {
  const pick: Step<NeuralState> = {
    id: "item",
    fields: ["code"],
    async run(f, state) {
      const items = await f.load((c) => c.neural());
      if (items === undefined) return "abort";
      if (items.length === 0) {
        await f.show(f.t("neural-none"));
        return "abort";
      }
      const a = await f.ask({
        text: f.t("ask-neural"),
        choices: items.map((n) => ({
          label: f.t("neural-label", {
            emoji: n.emoji,
            title: n.title,
            price: f.price(n.wholesalePriceRub, itemRef({ kind: "neural", code: n.code })),
          }),
          value: { code: n.code, title: n.title, emoji: n.emoji },
        })),
        pageSize: NEURAL_PER_PAGE,
      });
      return settle(a, (v) => {
        state.item = v;
      });
    },
  };
  const steps = [pick];
  return {
    kind: "neural",
    initial: (): NeuralState => ({}),
    steps: () => steps,
    build: (s) => ({
      kind: "neural",
      product: "neural",
      code: s.item?.code,
      title: s.item?.title,
      emoji: s.item?.emoji,
    }),
  };
}
