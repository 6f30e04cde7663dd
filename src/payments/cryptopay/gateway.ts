import { cutText } from "../../util/text.js";
import type { PaymentGateway, PaymentStatus } from "../gateway.js";
import type { CryptoPayClient } from "./client.js";
import type { CryptoPayInvoice } from "./schemas.js";

/**
 * Crypto Pay as a payment gateway: an invoice in fiat RUB whose payload names the subject, expiring
 * with the quote. Crypto Pay has no idempotency key: before making an invoice the gateway looks for
 * an active one of the same subject and amount (a double tap, a lost answer, a restart) and reuses it.
 * It has no refunds the bot can make: a failed order paid in crypto goes to the wallet or the operators.
 */
export function cryptopayGateway(client: CryptoPayClient): PaymentGateway {
  return {
    rail: "cryptopay",
    async create(p) {
      if (p.recover) {
        const open = await client.findInvoicesForOrder(p.subject.id, { status: "active" });
        const same = open.find((i) => i.amountKopecks === p.amountKopecks && i.payUrl);
        if (same?.payUrl) return { id: String(same.invoiceId), url: same.payUrl };
      }
      const seconds = Math.ceil((p.expiresAt - Date.now()) / 1000);
      const inv = await client.createInvoice({
        amountKopecks: p.amountKopecks,
        orderId: p.subject.id,
        description: cutText(p.description, 1024),
        expiresInSeconds: Math.min(2_678_400, Math.max(60, seconds)),
        payload: p.subject.kind,
      });
      if (!inv.payUrl) throw new Error(`Crypto Pay invoice ${inv.invoiceId} has no URL`);
      return { id: String(inv.invoiceId), url: inv.payUrl };
    },
    async read(ids) {
      const numeric = ids.map(Number).filter((n) => Number.isSafeInteger(n) && n > 0);
      const invoices = await client.getInvoices({ invoiceIds: numeric });
      return invoices.map(statusOf);
    },
  };
}

function statusOf(i: CryptoPayInvoice): PaymentStatus {
  return {
    rail: "cryptopay",
    id: String(i.invoiceId),
    status: i.status === "paid" ? "paid" : i.status === "expired" ? "cancelled" : "open",
    subject: i.orderId ? { kind: i.payloadData === "topup" ? "topup" : "order", id: i.orderId } : null,
    amountKopecks: i.fiat === "RUB" ? i.amountKopecks : null,
    url: i.payUrl,
    detail: i.paidAsset && i.paidAmount ? `${i.paidAmount} ${i.paidAsset}` : undefined,
  };
}
