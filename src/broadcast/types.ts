import type { MessageEntity } from "grammy/types";
import type { Locale, ProductKind } from "../config.js";

/** Who a broadcast goes to (customers who blocked the bot are always left out). */
export type Audience =
  | { kind: "all" }
  | { kind: "lang"; locale: Locale }
  /** Paid for an order in the last `days` days. */
  | { kind: "recent"; days: number }
  /** Paid for an order of this product kind in the last `days` days. */
  | { kind: "product"; product: ProductKind; days: number };

/** What a broadcast sends: a text with its formatting, or a photo with a caption; optional URL buttons. */
export interface BroadcastContent {
  text?: string;
  entities?: MessageEntity[];
  /** Telegram's file_id of the photo. */
  photo?: string;
  caption?: string;
  captionEntities?: MessageEntity[];
  /** One button per row. */
  buttons: { label: string; url: string }[];
}

export type BroadcastStatus = "running" | "paused" | "cancelled" | "done";

/** What is fixed when a broadcast starts. */
export interface BroadcastRecord {
  id: string;
  /** The operator who sent it. */
  by: number;
  content: BroadcastContent;
  audience: Audience;
  /** The operator's message showing the progress, and the language it is written in. */
  progress: { chatId: number; messageId: number; locale: Locale };
  createdAt: number;
}

/** A broadcast as it stands. */
export interface BroadcastView {
  record: BroadcastRecord;
  status: BroadcastStatus;
  total: number;
  sent: number;
  blocked: number;
  failed: number;
}
