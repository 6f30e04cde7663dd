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
op-orders-title = 📋 <b>Orders</b> · { $filter } · { $paged ->
    [yes] { $from }–{ $to } of { $total }
   *[no] { $total }
}
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
op-card-promo = Promo code: <code>{ $code }</code> −{ $discount } (price before: { $before })
op-card-margin = Margin: <b>{ $margin }</b>
op-card-payment = Payment: { $currency } { $amount }
op-card-payment-rail = Payment: { $currency } { $amount } · { $rail }
op-card-payment-none = Payment: none (direct checkout, the customer was not charged in the bot)
op-card-charge-telegram = Telegram charge id: <code>{ $id }</code>
op-card-charge-provider = Provider charge id: <code>{ $id }</code>
op-card-charge-payment = Payment id: <code>{ $id }</code>
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
op-recheck-slow = ⏳ The reseller is slow to answer; the result will follow in the chat.
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
op-stats-orders = Orders: { $orders } · paid { $paid } · delivered { $delivered } · failed or refused { $failed }
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
op-alert-charge-payment = Payment id: <code>{ $id }</code>
op-alert-refund-needed-todo = What to do: refund the payment through the payment provider, then tap Mark refunded in the order.
op-alert-refund-needed-stars-todo = What to do: refund the Stars by hand (refundStarPayment with the charge id above), then tap Mark refunded in the order.

op-alert-reseller-auth = 🔑 <b>Reseller API key rejected</b> (HTTP { $status } on { $endpoint }).
op-alert-reseller-auth-todo = What to do: check RESELLER_API_KEY; if the key was revoked, issue a new one in the reseller's bot and restart the shop bot. Orders cannot be quoted or paid until then. This alert repeats at most once every 10 minutes.

op-alert-reseller-down = 📡 <b>The reseller is not answering</b>: { $checks } deposit checks in a row got no answer (last: HTTP { $status } on { $endpoint }).
op-alert-reseller-down-todo = Paid orders wait for the reseller and go ahead by themselves once it answers; new quotes fail meanwhile. Check the reseller's status and RESELLER_API_URL; /balance shows when it answers again. This alert repeats at most once an hour while it lasts.

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
op-wallet-entries = { $paged ->
    [yes] Entries { $from }–{ $to } of { $total }
   *[no] Entries ({ $total })
} (dates UTC):
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

op-alert-product-paused = ⏸ <b>{ $product } paused:</b> the deposit ({ $balance }) cannot cover an order that needs { $needed } wholesale. Customers are told it is temporarily unavailable; nothing was charged.
op-alert-product-paused-todo = What to do: top up the deposit in the reseller's bot. The product comes back by itself within a minute of the deposit covering it; you will be told.
op-alert-product-resumed = ▶️ <b>{ $product } is back on sale:</b> the deposit ({ $balance }) covers it again.

## /customer <id or @username>: one customer's file
cmd-op-customer =
    .description = Operator: a customer's orders, wallet, referrals, notes, ban (/customer <id or @name>)
op-customer-usage = Send <code>/customer</code> and the customer's Telegram user id or @username: <code>/customer 123456789</code> or <code>/customer @name</code>.
op-customer-unknown-name = No customer with the username @{ $name } has written to the bot (or they have changed it since). Try their user id.
op-customer-title = 👤 <b>Customer</b> id <code>{ $id }</code> · { $name } · { $first }
op-customer-banned = 🚫 <b>Banned</b> by id <code>{ $by }</code> at { $time } UTC
op-customer-balance = 👛 Wallet: <b>{ $balance }</b>
op-customer-orders = 📦 <b>Orders</b> ({ $total } in all; the latest):
op-customer-referrals = 👥 <b>Referrals</b>: referred by { $by } · joined through them: { $joined } · their delivered orders: { $orders } · earned: { $earned }
op-customer-orders-none = 📦 <b>Orders</b>: none
op-customer-notes-none = 📝 <b>Notes</b>: none
op-customer-notes = 📝 <b>Notes</b> ({ $total }; the latest):
op-customer-note = • { $time } UTC, id <code>{ $by }</code>: { $text }
op-customer-add-note = 📝 Add note
op-customer-ban = 🚫 Ban
op-customer-unban = ✅ Unban
op-customer-wallet = 👛 Wallet
op-customer-refresh = 🔄 Refresh
op-customer-note-ask = Send the note about customer id <code>{ $id }</code> (at most { $max } characters).
op-customer-note-cancel = Cancel
op-customer-note-cancelled = No note added.
op-customer-note-length = A note is 1 to { $max } characters; this one has { $got }.
op-customer-note-saved = ✅ Note saved.
op-customer-ban-operator = Operators cannot be banned.
op-customer-ban-done = Banned. The customer will be told once, then ignored.
op-customer-ban-already = Already banned.
op-customer-unban-done = Unbanned.
op-customer-unban-already = Not banned.
## /prices: markups, minimum margin, rounding, products on and off
cmd-op-prices = prices
    .description = Operator: prices and products
op-prices-title = 💰 <b>Prices and products</b>
    A change applies to the next quote; quotes already shown keep their price.
op-prices-kind = { $state } { $kind }: markup { $markup }
op-prices-on = ✅ on sale
op-prices-off = ⛔ off
op-prices-items = <b>Item markups</b> (instead of their product's):
op-prices-item = • <code>{ $ref }</code>: { $markup }
op-prices-no-items = none
op-prices-items-more = … and { $count } more (send an item with "-" to remove its markup)
op-prices-margin = Minimum margin: { $margin } above wholesale
op-prices-rounding = Rounding up: { $rounding }
op-prices-rounding-rub = to 1 ₽
op-prices-rounding-ten = to 10 ₽
op-prices-rounding-kopeck = none (kopecks)
op-prices-changes = <b>Recent changes</b> (UTC):
op-prices-no-changes = none yet
op-prices-change = { $at } · { $by } · { $what }: { $from } → { $to }
op-prices-value-none = default
op-prices-what-markup = markup of { $kind }
op-prices-what-on = { $kind }
op-prices-what-item = markup of <code>{ $ref }</code>
op-prices-what-margin = minimum margin
op-prices-what-rounding = rounding
op-prices-btn-turn-off = ⛔ Turn off
op-prices-btn-turn-on = ✅ Turn on
op-prices-btn-item = 🏷 Markup of one item…
op-prices-btn-margin = Minimum margin: { $margin }…
op-prices-ask-markup = Send the markup of { $kind } in percent, 0 to { $max }, e.g. <code>12.5</code>.
op-prices-ask-margin = Send the minimum margin in roubles, 0 to { $max }, e.g. <code>50</code> or <code>49.90</code>. Every price is at least wholesale plus this.
op-prices-ask-item = Send an item and its markup in percent:
    <code>gift:&lt;gift id&gt; 15</code>, <code>neural:&lt;code&gt; 20</code> or <code>game:&lt;product ref&gt; 8</code>.
    <code>game:&lt;product ref&gt; -</code> removes the item's own markup (its product's applies again).
op-prices-rule-percent = A markup is a number of percent from 0 to 1000 with at most two decimals: <code>12.5</code>.
op-prices-rule-margin = A margin is a number of roubles from 0 to 100 000 with at most two decimals: <code>50</code>, <code>49.90</code>.
op-prices-rule-item = Send the item (<code>gift:…</code>, <code>neural:…</code> or <code>game:…</code>, letters, digits and <code>_.:-</code>, at most 64 after the colon), a space, and a percent from 0 to 1000 or <code>-</code>.
op-prices-rule-item-unknown = The catalog has no such item now: check its id (a gift's id, an AI item's code) and send it again.
op-prices-saved = ✅ Saved. The next quote uses it.
op-prices-unchanged = Nothing changed: it was already so.
op-prices-cancelled = ✖️ Cancelled. Nothing changed.

## /promo: promo codes
cmd-op-promo = promo
    .description = Operator: promo codes
op-promo-title = 🎟 <b>Promo codes</b>
op-promo-help = Make one: <code>/promo new SPRING 10% for=stars,gift limit=100 per=1 from=2026-03-01 to=2026-03-31 min=500</code>
    (<code>10%</code> or roubles off such as <code>150</code>; every option may be left out: all products, no limits, no dates, any order).
    One-time codes: <code>/promo batch 20 150 to=2026-12-31</code> (at most 100). Switch one off: <code>/promo off SPRING</code>.
op-promo-none = No codes yet.
op-promo-all-products = all products
op-promo-used = used { $used }
op-promo-used-of = used { $used }/{ $max }
op-promo-per = { $per } per customer
op-promo-min = from { $min }
op-promo-off = ⛔ off
op-promo-btn-off = ⛔ Switch off { $code }
op-promo-created = ✅ Code created:
op-promo-batch = ✅ { $count } one-time codes (tap one to copy it):
op-promo-taken = ⛔ A code <code>{ $code }</code> exists already. Nothing was created; choose another name.
op-promo-disabled = ✅ <code>{ $code }</code> is switched off. Orders it was applied to keep their price.
op-promo-unknown = ⛔ There is no code <code>{ $code }</code>.
op-promo-usage = Unknown action: use <code>new</code>, <code>batch</code>, <code>off</code> or <code>list</code>. Nothing changed.
op-promo-rule-code = A code is 4–32 letters, digits, "-" or "_" (stored in capitals). Nothing changed.
op-promo-rule-discount = The discount is a percent from 0.01% to 100% (<code>10%</code>) or roubles off (<code>150</code>, <code>149.90</code>). Nothing changed.
op-promo-rule-for = <code>for=</code> takes product kinds separated by commas: stars, premium, gift, steam, neural, game. Nothing changed.
op-promo-rule-count = <code>{ $key }=</code> takes a whole number of uses (0: unlimited). Nothing changed.
op-promo-rule-date = <code>{ $key }=</code> takes a UTC day as YYYY-MM-DD. Nothing changed.
op-promo-rule-dates = The last day is before the first. Nothing changed.
op-promo-rule-past = <code>to=</code> { $day } is over (days are UTC): a code ending then could never be used. Send a day from today on. Nothing changed.
op-promo-rule-min = <code>min=</code> takes roubles, such as <code>500</code>. Nothing changed.
op-promo-rule-option = Unknown option <code>{ $option }</code>: use for=, limit=, per=, from=, to=, min=. Nothing changed.
op-promo-rule-repeated = <code>{ $key }=</code> is given twice: send each option once. Nothing changed.
op-promo-rule-batch = A batch is 1 to { $max } codes: <code>/promo batch 20 10%</code>. Nothing changed.

## /broadcast: an operator's message to many customers

cmd-op-broadcast = broadcast
    .description = Operator: send a message to customers

bc-not-available = ⛔ Broadcasts are not available in this process.
bc-ask-content = 📣 <b>New broadcast</b>
    Send the message: a text with formatting, or a photo with a caption.
    URL buttons go on the last lines, one per line: <code>Label - https://example.com</code>
bc-ask-audience = 👥 Who should get it?
bc-aud-all = Everyone
bc-aud-lang = Language: { $lang }
bc-aud-recent = Bought in the last { $days } days
bc-aud-product = Bought { $product } ({ $days } days)
bc-preview = 📣 <b>Broadcast preview</b>
    Audience: { $audience } — <b>{ $size }</b> { $size ->
        [one] customer
       *[other] customers
    } (those who blocked the bot are left out)
    Message: { $kind ->
        [photo] a photo
       *[text] a text
    }, { $buttons } URL { $buttons ->
        [one] button
       *[other] buttons
    }
    Send yourself a test to see it as customers will.
bc-btn-test = 🧪 Send me a test
bc-btn-send = 📣 Send to { $size }
bc-btn-back = ◀️ Audience
bc-btn-cancel = ✖️ Cancel
bc-btn-pause = ⏸ Pause
bc-btn-resume = ▶️ Resume
bc-btn-stop = ✖️ Cancel broadcast
bc-test-sent = Test sent to you.
bc-dropped = Broadcast dropped; nothing was sent.
bc-outdated = This broadcast screen is outdated or already used; nothing was changed.
bc-nobody = Nobody is in this audience; nothing was sent.
bc-rule-empty = The message has no text. Send a text or a photo.
bc-rule-kind = A broadcast is a text or a photo with a caption. Send one of those.
bc-rule-button-url = A button's address must start with http:// or https://. Nothing was saved; send the message again.
bc-rule-buttons-many = At most 8 buttons. Nothing was saved; send the message again.
bc-rule-label = A button's label is at most 64 characters. Nothing was saved; send the message again.
bc-progress = 📣 <b>Broadcast</b> <code>{ $id }</code>: { $status ->
        [running] sending…
        [paused] ⏸ paused
        [cancelled] ✖️ cancelled
       *[done] ✅ finished
    }
    Audience: { $audience }, { $total } recipients
    Sent: <b>{ $sent }</b> · Blocked the bot: <b>{ $blocked }</b> · Failed: <b>{ $failed }</b> · Not sent yet: <b>{ $left }</b>

## Forum topics of the operators' group (OPERATOR_CHAT_ID), one per alert kind
op-topic-alert-delivery_failed = ❌ Failed deliveries
op-topic-alert-pay_rejected = ⛔ Refused payments
op-topic-alert-low_balance = 🪫 Deposit
op-topic-alert-stuck = 🐢 Stuck orders
op-topic-alert-refund_needed = 💸 Refunds to make
op-topic-alert-reseller_auth = 🔑 Reseller API key
op-topic-alert-reseller_down = 📡 Reseller not answering
op-topic-alert-duplicate_payment = 💳 Second payments
op-topic-alert-product_paused = ⏸ Paused products

# A member of the operators' group who is not in OPERATOR_IDS pressed an operator button.
op-not-operator = Only the shop's operators can use this button.
op-rule-text-only = Please answer with a text message.
op-private-only = ⚙️ { $command } works in a private chat with the bot: open @{ $bot } and send it there.

## Support line: customers' messages in the operators' chats
op-support-header = ✉️ <b>Support</b> · { $name }{ $username } (id <code>{ $id }</code>)
op-support-orders = Latest orders:
op-support-no-orders = No orders yet.
op-support-how-to-answer = <i>Reply to this message or to the customer's (in a forum: write in this topic); the customer gets it as "Support: …".</i>
op-support-delivered = ✅ Sent to the customer.
op-support-unreachable = ❌ Not delivered: the customer blocked the bot or deleted the chat.
op-support-unsupported = ⚠️ Only text, photos and files reach the customer; nothing was sent.
op-support-not-operator = Only the shop's operators (OPERATOR_IDS) can answer customers; nothing was sent.
op-unknown-user = ⚠️ This id has never written to the bot: check it before you ban it or credit it.
