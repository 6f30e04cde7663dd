import { PREMIUM_MONTHS, type ResellerProduct } from "../../reseller/types.js";
import type { FlowDef } from "./kit.js";
import { recipientStep, type Step, settle } from "./steps.js";

interface PremiumState {
  months?: (typeof PREMIUM_MONTHS)[keyof typeof PREMIUM_MONTHS];
  recipient?: string;
}

/** Telegram Premium: 3, 6 or 12 months, then the recipient. */
export function createPremiumFlow(): FlowDef<PremiumState> {
  const duration: Step<PremiumState> = {
    id: "months",
    fields: ["product"],
    async run(f, state) {
      const a = await f.ask({
        text: f.t("ask-premium-months"),
        choices: Object.values(PREMIUM_MONTHS).map((m) => ({
          label: f.t("premium-months", { months: m }),
          value: m,
        })),
        columns: 3,
      });
      return settle(a, (v) => {
        state.months = v;
      });
    },
  };
  const steps = [duration, recipientStep<PremiumState>()];
  return {
    kind: "premium",
    initial: (): PremiumState => ({}),
    steps: () => steps,
    build: (s) => ({
      kind: "premium",
      product: `premium_${s.months ?? 3}m` as ResellerProduct,
      recipient: s.recipient,
    }),
  };
}
