## Operator tools (/balance, /orders, /order, /stats, alerts). Shown only to OPERATOR_IDS.

# The language of this file, used to format numbers in alerts.
op-locale = en

# /order in the operators' command menu (add "order" to OPERATOR_COMMANDS in src/bot/commands.ts).
cmd-op-order = order
    .description = Operator: one order by its id or #reference

## Shared words
op-btn-open = 🔎 Open order
op-btn-refresh = 🔄 Refresh
op-btn-prev = ◀️ Newer
op-btn-next = Older ▶️
op-btn-page = { $page } / { $pages }
op-btn-recheck = 🔁 Re-check now
op-btn-resend = ✉️ Resend notification
op-btn-refunded = 💸 Mark refunded
op-btn-refunded-yes = ✅ Yes, it is refunded
op-btn-refunded-no = ✖️ Cancel

op-checked-at = <i>Checked at { $time } UTC</i>
op-times-utc = <i>Times are UTC.</i>

op-state-draft = 📝 draft
op-state-quoted = 🧾 quoted
op-state-paid = 💳 paid
op-state-pending = ⏳ pending
op-state-delivered = ✅ delivered
op-state-failed = ❌ failed
op-state-rejected = ⛔ rejected
op-state-expired = ⌛ expired
op-state-cancelled = 🚫 cancelled
op-flag-stuck = 🐢 stuck
op-flag-refund-needed = 💸 refund needed

op-refund-none = none
op-refund-done = refunded
op-refund-needed = ⚠️ needed

op-payment-open = open
op-payment-paid = paid
op-payment-cancelled = cancelled

op-rail-stars = Telegram Stars
op-rail-invoice = Telegram invoice
op-rail-yookassa = YooKassa
op-rail-cryptopay = Crypto Pay
op-rail-wallet = wallet
op-rail-direct = direct checkout

op-product-stars = ⭐ Stars ×{ $qty }
op-product-premium = 👑 Premium { $months } mo
op-product-gift = { $emoji } Gift { $title }
op-product-steam = 🎮 Steam top-up { $amount }
op-product-neural = { $emoji } { $title }
op-product-game = 🕹 { $title } ×{ $qty }

op-reason-insufficient_funds = deposit too low
op-reason-auth = API key rejected
op-reason-not_found = order unknown to the reseller
op-reason-bad_request = request refused as invalid
op-reason-rate_limited = too many requests
op-reason-server = reseller server error
op-reason-network = reseller not reachable
op-reason-timeout = reseller did not answer in time
op-reason-bad_response = unreadable answer from the reseller

op-reseller-auth = 🔑 <b>API key rejected.</b> The reseller answered 401/403: check RESELLER_API_KEY (it may have been revoked).
op-reseller-down = 📡 <b>The reseller service is not answering.</b> Try Refresh in a minute.
op-reseller-unexpected = ❓ <b>The reseller gave an answer the bot could not read.</b> Try again later; the log has the details.

## /balance
op-balance-title = 💰 <b>Reseller deposit</b>
op-balance-amount = Balance: <b>{ $balance }</b>
op-balance-low = ⚠️ Below the alert threshold of { $threshold }: top up the deposit, or orders will be refused.
op-runway-days = ⏳ At the last 7 days' pace ({ $spent } spent) it lasts about { $days } { $days ->
    [one] day
   *[other] days
}.
op-runway-hours = ⏳ At the last 7 days' pace ({ $spent } spent) it lasts about { $hours } { $hours ->
    [one] hour
   *[other] hours
}.
op-runway-over-year = ⏳ At the last 7 days' pace ({ $spent } spent) it lasts more than a year.
op-runway-empty = ⏳ Nothing left to spend; the last 7 days spent { $spent }.
op-runway-none = ⏳ No spending in 7 days: nothing to forecast from.

## /orders
op-filter-all = All
op-filter-pending = Pending
op-filter-delivered = Delivered
op-filter-failed = Failed
op-filter-attention = ⚠️ Attention
op-orders-title = 📋 <b>Orders</b> · { $filter } · { $from }–{ $to } of { $total }
op-orders-empty = 📋 <b>Orders</b> · { $filter }: none.
op-orders-past-end = 📋 <b>Orders</b> · { $filter }: no more orders on this page. Go back to a newer page.

## /order and the detail card
op-order-usage = Send <code>/order</code> and the order id: the full id, or the 8-character reference a customer sees on the card (<code>/order 1a2b3c4d</code>).
op-order-not-found = No order <code>{ $id }</code>.
op-order-ambiguous = Several orders start with <code>{ $id }</code>; send more of the id.
op-card-title = 🧾 <b>Order { $ref }</b>
    <code>{ $id }</code>
op-card-state = State: <b>{ $state }</b>
op-card-product = Product: { $product }
op-card-recipient = Recipient: { $recipient }
op-card-parameters = Parameters: { $params }
op-card-customer = Customer: { $link } · id <code>{ $id }</code> · { $username } · language { $locale }
op-card-chat = Chat: <code>{ $chat }</code>
op-card-wholesale = Wholesale price: { $wholesale }
op-card-charged = Deposit charged: { $charged }
op-card-price = Customer price: { $price }
op-card-margin = Margin: <b>{ $margin }</b>
op-card-payment = Payment: { $currency } { $amount }
op-card-payment-rail = Payment: { $currency } { $amount } · { $rail }
op-card-payment-none = Payment: none (direct checkout, the customer was not charged in the bot)
op-card-charge-telegram = Telegram charge id: <code>{ $id }</code>
op-card-charge-provider = Provider charge id: <code>{ $id }</code>
op-card-provider-payment = { $rail } payment: <code>{ $id }</code> · { $status }
op-card-extra-charge = Second payment: { $amount } · { $rail } · <code>{ $id }</code> · refund { $refund }
op-card-extra-refund-id = ↳ refund id: <code>{ $id }</code>
op-card-refund = Refund: { $refund }
op-card-refund-id = Refund id at the provider: <code>{ $id }</code>
op-card-reseller-status = Reseller status: <code>{ $status }</code>
op-card-reject-reason = Pay refused: { $reason }
op-card-reject-balance = Deposit at that moment: { $balance }
op-card-error = Error: <i>{ $error }</i>
op-card-payload = Delivered:
op-card-payload-too-long = • (too long to show here; re-check the order with the reseller)
op-card-notified = Customer notified: { $time } UTC
op-card-not-notified = Customer notified: not yet
op-card-timeline = <b>Timeline (UTC)</b>
op-card-expires = Quote expires: { $time }
op-card-updated = Last change: { $time }

op-refund-confirm = Has this payment been refunded to the customer outside the bot? Confirm only after the money went back.
op-recheck-done = Re-checked: { $state }
op-recheck-unchanged = Re-checked: no change ({ $state })
op-recheck-not-tracking = Nothing to re-check: the order is { $state }.
op-resend-done = The customer's notification will be sent again.
op-resend-not-final = Nothing to resend: the order has no final result yet.
op-refunded-done = Marked refunded.
op-refunded-not-needed = No refund was pending for this order.
op-gone = This order no longer exists.
op-archived = 🗄 Archived: this order left the bot's database after the retention period; it is kept in the archive file of { $month }. Read-only.

## /stats
op-stats-title = 📊 <b>Statistics</b> (orders by the time they were created, UTC)
op-stats-today = Today (since 00:00 UTC)
op-stats-week = Last 7 days
op-stats-month = Last 30 days
op-stats-orders = Orders: { $orders } · paid { $paid } · delivered { $delivered } · failed { $failed }
op-stats-money = Revenue { $revenue } · wholesale { $cost } · margin <b>{ $margin }</b>
op-stats-note = <i>Revenue, wholesale cost and margin count delivered orders only.</i>

## Alerts
op-alert-reason = Reason: <i>{ $reason }</i>
op-alert-order = Order <code>{ $ref }</code> · { $product }{ $recipient }
op-alert-order-customer = 👤 { $customer } (id <code>{ $id }</code>) · { $price } · { $state }
op-alert-order-id = Order id: <code>{ $id }</code> (not in the store)
op-alert-money-none = The customer was not charged.
op-alert-money-refunded = The customer's payment ({ $amount }) has been refunded.
op-alert-money-stars-auto = The customer's { $amount } are being refunded automatically.
op-alert-money-refund-by-hand = ⚠️ The customer's payment ({ $amount }) must be refunded by hand.

op-alert-delivery-failed = ❌ <b>Delivery failed.</b> The reseller could not deliver this order.
op-alert-delivery-failed-todo = What to do: read the reason; if the customer still wants it, they can order again (for example with a corrected recipient).

op-alert-pay-rejected = ⛔ <b>Pay refused.</b> The customer paid, but the reseller refused to charge the deposit.
op-alert-reject-kind = Why: { $kind }
op-alert-balance-then = Deposit at that moment: <b>{ $balance }</b>
op-alert-balance-unknown = The deposit could not be read at that moment.
op-alert-todo-topup = What to do: top up the deposit; new orders are refused until then.
op-alert-pay-rejected-todo = What to do: check the reason with the reseller before the customer orders again.

op-alert-low-balance = 🪫 <b>Deposit low:</b> { $balance } left, under the alert threshold of { $threshold }.
op-alert-low-balance-todo = What to do: top up the deposit in the reseller's bot; orders are refused once it runs out. This alert repeats at most once an hour while the deposit stays low.

op-alert-stuck = 🐢 <b>Order stuck.</b> No final status from the reseller since the payment at { $since } UTC.
op-alert-stuck-todo = What to do: open the order and tap Re-check now; if it stays pending, ask the reseller's support about this order id.

op-alert-refund-needed = 💸 <b>Refund needed:</b> the customer paid { $amount } and the bot could not refund it automatically.
op-alert-charge-telegram = Telegram charge id: <code>{ $id }</code>
op-alert-charge-provider = Provider charge id: <code>{ $id }</code>
op-alert-refund-needed-todo = What to do: refund the payment through the payment provider, then tap Mark refunded in the order.
op-alert-refund-needed-stars-todo = What to do: refund the Stars by hand (refundStarPayment with the charge id above), then tap Mark refunded in the order.

op-alert-reseller-auth = 🔑 <b>Reseller API key rejected</b> (HTTP { $status } on { $endpoint }).
op-alert-reseller-auth-todo = What to do: check RESELLER_API_KEY; if the key was revoked, issue a new one in the reseller's bot and restart the shop bot. Orders cannot be quoted or paid until then. This alert repeats at most once every 10 minutes.

op-alert-duplicate = 💳 <b>Second payment</b> for an order that was already paid.
op-alert-extra-charge = Payment { $amount } · <code>{ $id }</code> · refund { $refund }
op-alert-duplicate-todo = What to do: Stars are refunded automatically; a provider payment, or a Stars refund that failed, must be refunded by hand.
op-alert-duplicate-unknown = 💳 <b>Payment for an unknown order.</b> The bot has no order with this id.
op-alert-duplicate-unknown-todo = What to do: Stars were refunded automatically; refund a provider payment by hand.

## /wallet <user id>: a customer's wallet and corrections
cmd-op-wallet = wallet
    .description = Operator: a customer's wallet (/wallet <user id>)
op-wallet-usage = Send <code>/wallet</code> and the customer's Telegram user id: <code>/wallet 123456789</code>. Without an id it shows your own wallet.
op-wallet-not-offered = 👛 The wallet is not offered in this shop (CHECKOUT does not list <code>wallet</code>).
op-wallet-title = 👛 <b>Wallet of customer</b> <code>{ $user }</code>
op-wallet-balance = Balance: <b>{ $balance }</b>
op-wallet-empty = No entries.
op-wallet-entries = Entries { $from }–{ $to } of { $total } (dates UTC):
op-wallet-by = by <code>{ $operator }</code>
op-wallet-btn-adjust = ✏️ Adjust
op-wallet-btn-confirm = ✅ Confirm
op-wallet-btn-cancel = ✖️ Cancel
op-wallet-ask-amount = ✏️ <b>Correct the wallet of</b> <code>{ $user }</code>
    Balance: { $balance }.
    Send the signed amount in roubles: <code>+150</code> credits, <code>-20.50</code> debits.
op-wallet-ask-note = ✏️ <b>{ $amount }</b> for <code>{ $user }</code>.
    Send the reason, at most { $max } characters. The customer sees it.
op-wallet-confirm = ❓ <b>Apply this correction?</b>
    Customer: <code>{ $user }</code>
    Amount: <b>{ $amount }</b>
    Reason: { $note }
    Balance now: { $balance }
op-wallet-rule-amount = Send a signed amount in roubles, not zero, at most 1 000 000, with at most two decimals: <code>+150</code>, <code>-20.50</code>.
op-wallet-rule-note = A reason is required: one line of at most 200 characters.
op-wallet-insufficient = ⛔ Refused: the balance is { $balance }, so { $amount } cannot be taken. Nothing changed.
op-wallet-limit = ⛔ Refused: the balance would go over the wallet's limit. Nothing changed.
op-wallet-conflict = ⛔ Refused: this correction's reference was used for something else. Nothing changed; start again.
op-wallet-done = ✅ Applied: { $amount }. Balance: { $balance }.
op-wallet-already-done = This correction was already applied ({ $amount }). Balance: { $balance }.
op-wallet-already = This correction was already applied.
op-wallet-outdated = This confirmation is no longer active.
op-wallet-cancelled = ✖️ Correction cancelled. Nothing changed.

## /export: orders of a period as a CSV file
cmd-op-export = export
    .description = Operator: orders of a period as a CSV file
op-export-choose = 📤 <b>Export orders as CSV</b>
    Pick a period, or send the days yourself, from and to inclusive (UTC, at most { $max } days):
    <code>/export 2026-11-01 2026-11-23</code>
op-export-today = Today
op-export-7d = Last 7 days
op-export-30d = Last 30 days
op-export-this-month = This month
op-export-last-month = Last month
op-export-preparing = Preparing the file…
op-export-caption = 📤 { $rows } orders created { $from } – { $to } (UTC, both days included).
op-export-busy = ⏳ Your previous export is still being prepared; wait for its file, then ask again.
op-export-too-large = ⛔ The orders of { $from } – { $to } make a file larger than Telegram's 50 MB limit. Nothing was sent; export a shorter period.
op-export-bad-date = ⛔ <code>{ $value }</code> is not a date. Send days as YYYY-MM-DD (UTC), from and to inclusive: <code>/export 2026-11-01 2026-11-23</code>, or one day: <code>/export 2026-11-05</code>. Nothing was sent.
op-export-too-many = ⛔ Send at most two days, from and to inclusive: <code>/export 2026-11-01 2026-11-23</code>. Nothing was sent.
op-export-reversed = ⛔ The first day is after the second. Send the earlier day first: <code>/export 2026-11-01 2026-11-23</code>. Nothing was sent.
op-export-too-long = ⛔ One export covers at most { $max } days. Send a shorter period: <code>/export 2026-11-01 2026-11-23</code>. Nothing was sent.

## Forum topics of the operators' group (OPERATOR_CHAT_ID), one per alert kind
op-topic-alert-delivery_failed = ❌ Failed deliveries
op-topic-alert-pay_rejected = ⛔ Refused payments
op-topic-alert-low_balance = 🪫 Deposit
op-topic-alert-stuck = 🐢 Stuck orders
op-topic-alert-refund_needed = 💸 Refunds to make
op-topic-alert-reseller_auth = 🔑 Reseller API key
op-topic-alert-duplicate_payment = 💳 Second payments

# A member of the operators' group who is not in OPERATOR_IDS pressed an operator button.
op-not-operator = Only the shop's operators can use this button.

## Support line: customers' messages in the operators' chats
op-support-header = ✉️ <b>Support</b> · { $name }{ $username } (id <code>{ $id }</code>)
op-support-orders = Latest orders:
op-support-no-orders = No orders yet.
op-support-how-to-answer = <i>Reply to this message or to the customer's (in a forum: write in this topic); the customer gets it as "Support: …".</i>
op-support-delivered = ✅ Sent to the customer.
op-support-unreachable = ❌ Not delivered: the customer blocked the bot or deleted the chat.
op-support-unsupported = ⚠️ Only text, photos and files reach the customer; nothing was sent.
op-support-not-operator = Only the shop's operators (OPERATOR_IDS) can answer customers; nothing was sent.
