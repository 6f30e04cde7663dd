import { InlineKeyboard } from "grammy";
import type { Audience, BroadcastView } from "../../broadcast/types.js";
import type { Translate } from "../context.js";
import { CB } from "../keyboards/callbacks.js";

/** Audiences offered in the picker: `bc:a:<code>`. */
export const RECENT_DAYS = [7, 30, 90] as const;
/** "Bought this product kind" looks this far back. */
export const PRODUCT_DAYS = 90;

export function audienceCode(a: Audience): string {
  switch (a.kind) {
    case "all":
      return "all";
    case "lang":
      return `l:${a.locale}`;
    case "recent":
      return `r:${a.days}`;
    case "product":
      return `p:${a.product}`;
  }
}

export function describeAudience(a: Audience, t: Translate): string {
  switch (a.kind) {
    case "all":
      return t("bc-aud-all");
    case "lang":
      return t("bc-aud-lang", { lang: a.locale });
    case "recent":
      return t("bc-aud-recent", { days: a.days });
    case "product":
      return t("bc-aud-product", { product: t(`menu-${a.product}`), days: a.days });
  }
}

export function renderAskContent(t: Translate, notice?: string): { text: string; keyboard: InlineKeyboard } {
  const text = [notice, t("bc-ask-content")].filter(Boolean).join("\n\n");
  return { text, keyboard: new InlineKeyboard().text(t("bc-btn-cancel"), `${CB.broadcast}x`) };
}

export function renderAudiencePicker(
  audiences: readonly Audience[],
  t: Translate,
): { text: string; keyboard: InlineKeyboard } {
  const kb = new InlineKeyboard();
  for (const a of audiences) kb.text(describeAudience(a, t), `${CB.broadcast}a:${audienceCode(a)}`).row();
  kb.text(t("bc-btn-cancel"), `${CB.broadcast}x`);
  return { text: t("bc-ask-audience"), keyboard: kb };
}

export function renderPreview(
  input: { id: string; audience: Audience; size: number; buttons: number; photo: boolean },
  t: Translate,
  notice?: string,
): { text: string; keyboard: InlineKeyboard } {
  const text = [
    notice,
    t("bc-preview", {
      audience: describeAudience(input.audience, t),
      size: input.size,
      buttons: input.buttons,
      kind: input.photo ? "photo" : "text",
    }),
  ]
    .filter(Boolean)
    .join("\n\n");
  const kb = new InlineKeyboard().text(t("bc-btn-test"), `${CB.broadcast}t`).row();
  if (input.size > 0) kb.text(t("bc-btn-send", { size: input.size }), `${CB.broadcast}go:${input.id}`).row();
  kb.text(t("bc-btn-back"), `${CB.broadcast}b`).text(t("bc-btn-cancel"), `${CB.broadcast}x`);
  return { text, keyboard: kb };
}

/** The operator's progress message: live figures, and Pause/Resume and Cancel while it runs. */
export function renderProgress(
  view: BroadcastView,
  t: Translate,
): { text: string; keyboard?: InlineKeyboard } {
  const left = Math.max(0, view.total - view.sent - view.blocked - view.failed);
  const text = t("bc-progress", {
    id: view.record.id,
    status: view.status,
    audience: describeAudience(view.record.audience, t),
    total: view.total,
    sent: view.sent,
    blocked: view.blocked,
    failed: view.failed,
    left,
  });
  const id = view.record.id;
  if (view.status === "running") {
    return {
      text,
      keyboard: new InlineKeyboard()
        .text(t("bc-btn-pause"), `${CB.broadcast}p:${id}`)
        .text(t("bc-btn-stop"), `${CB.broadcast}c:${id}`),
    };
  }
  if (view.status === "paused") {
    return {
      text,
      keyboard: new InlineKeyboard()
        .text(t("bc-btn-resume"), `${CB.broadcast}r:${id}`)
        .text(t("bc-btn-stop"), `${CB.broadcast}c:${id}`),
    };
  }
  return { text };
}
