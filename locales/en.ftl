## Commands (descriptions shown in Telegram's command menu)

cmd-start = start
    .description = Main menu: choose what to buy
cmd-orders = orders
    .description = My orders
cmd-wallet = wallet
    .description = My wallet: balance and top-up
cmd-language = language
    .description = Change the language
cmd-cancel = cancel
    .description = Cancel the current step or unpaid order
cmd-help = help
    .description = How the shop works
cmd-support = support
    .description = Write to the shop's support
cmd-paysupport = paysupport
    .description = Help with a payment
cmd-op-balance = balance
    .description = Operator: reseller deposit balance
cmd-op-orders = orders
    .description = Operator: all orders, filters, re-check
cmd-op-stats = stats
    .description = Operator: sales statistics

## Main menu

menu-title = 🛍 <b>What would you like to buy?</b>
    Pick a product below. Prices are shown before you pay.
menu-title-none = 🛍 <b>Nothing is on sale right now.</b>
    The shop has paused its products for a while: please come back later. Your orders stay in 📦 My orders.
menu-stars = ⭐ Telegram Stars
menu-premium = 💎 Telegram Premium
menu-gift = 🎁 Gifts
menu-steam = 🎮 Steam top-up
menu-neural = 🤖 AI services
menu-game = 🕹 Games
menu-orders = 📦 My orders
menu-wallet = 👛 Wallet
shop-closed = 🔒 Sorry, this shop is not open to you. If you think this is a mistake, contact the shop's owner.
product-disabled = This product is not sold right now.
product-unavailable-flow = ⛔ This product has just become unavailable: nothing was ordered or charged. /start shows what is on sale.

## Buttons

btn-back = ‹ Back
btn-cancel = ✖️ Cancel
btn-retry = 🔄 Try again
btn-cancel-quote = ✖️ Cancel #{ $id }
btn-pay = 💳 Pay { $price }
btn-promo = 🎟 Promo code
btn-pay-stars = ⭐ Telegram Stars — { $price }
btn-pay-invoice = 💳 Telegram payment — { $price }
btn-pay-yookassa = 💳 Card or SBP — { $price }
btn-pay-cryptopay = 🪙 Crypto — { $price }
btn-pay-wallet = 👛 From my wallet — { $price }
btn-open-yookassa = 💳 Pay { $price } by card or SBP
btn-open-cryptopay = 🪙 Pay { $price } in crypto
btn-confirm = ✅ Confirm order
btn-requote = 🔄 Get a new price
btn-to-myself = 🙋 To myself (@{ $username })
btn-prev = ‹ Previous
btn-next = Next ›

## Flow questions

ask-stars-amount = ⭐ <b>How many stars?</b>
    Pick an amount or type any whole number from { $min } to { $max }.
ask-premium-months = 💎 <b>Telegram Premium — for how long?</b>
premium-months = { $months ->
    [one] { $months } month
   *[other] { $months } months
}
ask-recipient = 👤 <b>Who gets it?</b>
    Send their Telegram username: <code>@name</code>, <code>name</code> or a <code>t.me/name</code> link.
ask-recipient-or-self = 👤 <b>Who gets it?</b>
    Tap “To myself” or send someone's Telegram username: <code>@name</code>, <code>name</code> or a <code>t.me/name</code> link.
ask-gift = 🎁 <b>Choose a gift</b>
    Each button shows the gift, its value in stars and the price.
gift-label = { $emoji } { $stars }⭐ · { $price }
gift-label-limited = { $emoji } { $stars }⭐ · { $price } · { $left } left
gift-none = 🎁 There are no gifts on sale right now. Please look again later: /start
ask-steam-login = 🎮 <b>Your Steam login</b>
    Send the login of the Steam account to top up (not the profile name).
ask-steam-amount = 💰 <b>How much to top up?</b>
    Pick an amount or type a whole number of roubles from { $min } to { $max }.
ask-neural = 🤖 <b>Choose an AI service</b>
neural-label = { $emoji } { $title } · { $price }
neural-none = 🤖 No AI services are on sale right now. Please look again later: /start
ask-game = 🕹 <b>Choose a game</b>
game-none = 🕹 No games are on sale right now. Please look again later: /start
ask-game-region = 🌍 <b>{ $game }: choose the region</b>
game-no-regions = This game has no regions on sale right now; choose another one.
ask-game-package = 📦 <b>{ $game } · { $region }: choose a package</b>
game-no-packages = There is nothing on sale for this region right now; choose another one.
package-label = { $title } · { $price }
ask-game-quantity = 🔢 <b>How many?</b>
    Pick a number or type a whole number from { $min } to { $max }.
ask-game-field = ✏️ <b>{ $field }</b>
    Send the value for your game account.

## Flow messages

flow-cancelled = ✖️ Cancelled. Nothing was ordered. /start to begin again.
flow-use-buttons = Please choose with the buttons below.
flow-send-text = Please answer with a text message or the buttons below.
flow-no-command = That is a command I do not know, not an answer. Send the answer itself; /cancel stops the order.
flow-too-long = This order took too many steps, so I stopped here. /start to begin again.
catalog-unavailable = ⏳ The shop's supplier is not answering right now. Try again in a moment.
catalog-unavailable-final = ⏳ The shop's supplier is still not answering. Please try again later: /start
quote-unavailable = ⏳ The shop's supplier is not answering right now, so there is no price yet. Try again in a moment — you will not be charged twice.
quote-paused = ⏸ This product is temporarily unavailable. Please try again a little later.
quote-refused-shop = 😔 The shop cannot take this order right now. Please try again later.
quote-refused-request = 😔 The supplier did not accept this order. Check what you entered and try again.
quote-invalid = The supplier did not accept this: { $reasons }. Please answer again.
quote-gave-up = 😔 We could not get a price for this order. Please try again later: /start
quote-limit = ✋ At most { $max } unpaid { $max ->
    [one] order
   *[other] orders
} may wait for payment at once, and you have { $count }. Pay one of them, or cancel one to go on with this order.

## Input rules

rule-username-empty = A username is needed.
rule-username-chars = A Telegram username has only Latin letters, digits and underscores (_).
rule-username-length = A Telegram username is 5 to 32 characters long.
rule-username-start = A Telegram username starts with a letter.
rule-username-end = A Telegram username cannot end with an underscore (_).
rule-username-double = A Telegram username cannot contain two underscores in a row (__).
rule-number-format = Send a whole number from { $min } to { $max }, digits only.
rule-number-whole = Send a whole number, without a fraction.
rule-number-min = The smallest amount is { $min }.
rule-number-max = The largest amount is { $max }.
rule-login-empty = A login is needed.
rule-login-spaces = A login has no spaces.
rule-login-length = A login is at most { $max } characters long.
rule-login-chars = A login cannot contain &lt;, &gt; or control characters.
rule-field-empty = This cannot be empty.
rule-field-length = At most { $max } characters, please.
rule-field-one-line = Send it on one line.
rule-input-length = That is too long: at most { $max } characters, please.

## What was ordered

item-stars = ⭐ { $count } Telegram { $count ->
    [one] Star
   *[other] Stars
}
item-premium = 💎 Telegram Premium for { $months ->
    [one] { $months } month
   *[other] { $months } months
}
item-gift = 🎁 Gift { $emoji } ({ $title })
item-steam = 🎮 Steam top-up of { $amount }
item-neural = { $emoji } { $title }
item-game = 🕹 { $title } × { $count }

## Order card

card-title = 🧾 <b>Order #{ $id }</b>
card-recipient = For: { $recipient }
card-login = Steam login: { $recipient }
card-price = Price: <b>{ $price }</b>
card-price-promo = Price: <s>{ $old }</s> <b>{ $price }</b> · 🎟 { $code } −{ $discount }
card-promo-clamped = The discount was cut: an order is never sold below what the shop pays for it.
card-status-draft = ⏳ Getting the price…
card-status-quoted = ⏳ Waiting for your payment. The price holds for { $minutes } min.
card-status-quoted-direct = ⏳ Waiting for your confirmation. The price holds for { $minutes } min.
card-status-paid = 💳 Payment received. Passing the order to the supplier…
card-status-pending = 🚚 Being delivered…
card-status-delivered = ✅ Delivered.
card-status-failed = ❌ Delivery failed.
card-status-rejected = ❌ The supplier refused the order.
card-status-expired = ⌛ The price has expired. Get a new price to order.
card-status-cancelled = ✖️ Cancelled.

## Order status (lists)

status-draft = getting the price
status-quoted = awaiting payment
status-paid = paid
status-pending = being delivered
status-delivered = delivered
status-failed = failed
status-rejected = refused
status-expired = expired
status-cancelled = cancelled

## Payment

invoice-title = Order #{ $id }
invoice-description = { $item } · for { $recipient }
invoice-description-login = { $item } · Steam login { $login }
pay-not-found = This order is not yours or no longer exists.
pay-expired = The price has expired.
pay-not-quoted = This order can no longer be paid: it is { $status }.
requote-failed = 😔 Could not get a new price right now. Please try again later: /start
confirm-ok = Order confirmed.
confirm-already = This order was already confirmed.
cancel-quote-done = ✖️ Your unpaid order was cancelled.
cancel-nothing = Nothing to cancel. /start to see what you can buy.
cancel-input-done = ✖️ Cancelled: I am no longer waiting for that answer. Nothing else changed.
cancel-ok = Order cancelled.
cancel-too-late = This order cannot be cancelled: it is { $status }.
precheckout-not_found = This order does not exist. Please start again with /start.
precheckout-not_quoted = This order can no longer be paid.
precheckout-expired = The price has expired. Get a new price in the chat.
precheckout-wrong_user = This invoice belongs to someone else.
precheckout-wrong_amount = The order's price changed after this invoice was sent. Pay with the buttons on the order's card: they show the price now.
precheckout-timeout = The shop could not check the order in time. Please try again.
pay-rail-unavailable = This way of paying is not available right now. Please choose another.
pay-link-failed = The payment page could not be opened right now. Please try again in a minute or choose another way to pay.
pay-link-busy = The payment link is being prepared, one moment…
pay-link-yookassa = Order #{ $id }: pay <b>{ $price }</b> by card or SBP on YooKassa's page. The order card here will show the payment as soon as it arrives.
pay-link-cryptopay = Order #{ $id }: pay <b>{ $price }</b> in the coin of your choice in @CryptoBot. The order card here will show the payment as soon as it arrives.
wallet-paid = Paid from your wallet. Balance: { $balance }
wallet-insufficient = Your wallet holds { $balance }, the order costs { $price }. Top it up with /wallet or choose another way to pay.
payment-extra-refunded = You had already paid for order #{ $id }, so this second payment ({ $amount }) is refunded.
payment-extra-wallet = You had already paid for order #{ $id }, so this second payment ({ $amount }) goes back to your wallet in the bot (/wallet).
payment-extra-card = You had already paid for order #{ $id }, so this second payment ({ $amount }) is refunded the way you paid (card or SBP); banks take up to a few days to show it.
payment-extra-flagged = You had already paid for order #{ $id }. The shop has been told and will refund this second payment ({ $amount }).

## Refunds

refund-stars-auto = ⭐ Your { $stars } { $stars ->
    [one] star is
   *[other] stars are
} refunded automatically.
refund-stars-done = ⭐ Your { $stars } { $stars ->
    [one] star was
   *[other] stars were
} refunded.
refund-rub-shop = 💸 The shop will refund you { $amount }.
refund-rub-shop-contact = 💸 The shop will refund you { $amount }. Questions: { $contact }
refund-rub-done = 💸 The shop refunded you { $amount }.
refund-wallet-auto = 👛 { $amount } goes back to your wallet in the bot.
refund-wallet-done = 👛 { $amount } is back in your wallet in the bot (/wallet).
refund-card-auto = 💸 { $amount } is being refunded the way you paid (card or SBP).
refund-card-done = 💸 { $amount } was refunded the way you paid (card or SBP); banks take up to a few days to show it.
refund-none-charged = You were not charged.

## Final messages

final-delivered = ✅ <b>Order #{ $id } delivered</b>
    { $item }
final-failed = ❌ <b>Order #{ $id } could not be delivered</b>
    { $item }
final-rejected = ❌ <b>Order #{ $id } was refused by the supplier</b>
    { $item }
final-reason = Reason: { $reason }
final-no-reason = not given
final-reason-unavailable = the shop cannot place this order right now
final-support = Support: { $contact }
final-tx = Transaction: { $tx }
final-codes = { $count ->
    [one] Your code:
   *[other] Your codes:
}
final-details = Details:
final-truncated = … (shortened; ask support for the rest)

## My orders

orders-empty = 📦 You have no orders yet. /start to buy something.
orders-title = 📦 <b>Your orders</b> ({ $paged ->
    [yes] { $from }–{ $to } of { $total }
   *[no] { $total }
})

## Wallet

wallet-not-offered = 👛 The wallet is not available in this shop. You pay for each order on its card.
wallet-private-only = 👛 The wallet is shown only in a private chat with the bot.
wallet-title = 👛 <b>Your wallet</b>
wallet-balance = Balance: <b>{ $balance }</b>
wallet-empty = No top-ups or payments yet.
wallet-past-end = No more entries here.
wallet-entries = { $paged ->
    [yes] Entries { $from }–{ $to } of { $total }:
   *[no] Entries ({ $total }):
}
wallet-reason-topup = top-up
wallet-reason-order = order #{ $id }
wallet-reason-refund = refund for order #{ $id }
wallet-reason-referral = referral bonus
wallet-reason-adjustment = correction by the shop: { $note }
wallet-btn-topup = ➕ Top up
wallet-btn-newer = ‹ Newer
wallet-btn-older = Older ›
wallet-btn-other = ✏️ Other amount
wallet-topup-ask = ➕ <b>How much to top up?</b>
    Pick an amount or tap “Other amount”.
wallet-topup-other = ✏️ <b>How much to top up?</b>
    Send a whole number of roubles from { $min } to { $max }.
wallet-topup-rails = ➕ <b>Top up by { $amount }</b>
    Choose how to pay.
wallet-topup-no-rails = The shop takes no payments for top-ups right now.
wallet-rail-button = { $rail } — { $price }
topup-invoice-title = Wallet top-up
topup-invoice-description = Top up your wallet in the shop by { $amount }.
topup-link-yookassa = 👛 Top-up by <b>{ $amount }</b>: pay by card or SBP on YooKassa's page. The money is in your wallet as soon as it arrives.
topup-link-cryptopay = 👛 Top-up by <b>{ $amount }</b>: pay in the coin of your choice in @CryptoBot. The money is in your wallet as soon as it arrives.
topup-credited = 👛 Wallet topped up: <b>+{ $amount }</b>. Balance: <b>{ $balance }</b>
topup-unknown = 😔 Your payment arrived, but the shop could not find its top-up. The shop's staff will sort it out; write to /paysupport if it takes long.
precheckout-topup-not_found = This top-up does not exist. Please start again with /wallet.
precheckout-topup-wrong_user = This invoice belongs to someone else.
precheckout-topup-wrong_amount = The amount does not match the top-up. Please start again with /wallet.

## Payment rails (buttons on order cards and top-ups)

rail-stars = ⭐ Telegram Stars
rail-invoice = 💳 Telegram payment
rail-yookassa = 💳 Card or SBP
rail-cryptopay = 🪙 Crypto
rail-wallet = 👛 Wallet

## Language

language-choose = Choose your language:
language-set = ✅ The bot now speaks English.

## Help

help-text = 🛍 <b>How it works</b>
    1. /start and pick a product.
    2. Answer a few questions (buttons or text); ‹ Back and ✖️ Cancel work at every step.
    3. Check the order card with the price and pay.
    4. The card shows the progress, and a message tells you when it is delivered.
    /orders lists your orders, /support writes to the shop, /language changes the language, /cancel stops the current order.
help-wallet = 👛 /wallet shows your balance in the shop and tops it up; an order is then paid in one tap, and refunds come back there at once.
paysupport-text = 💳 <b>Payment help</b>
    If a payment went wrong, write to support with your order number (shown on the card as #…).
    Stars for orders that fail are refunded automatically.
support-contact = Support: { $contact }
support-no-contact = Support: /support — write to the shop's operators right here.

## General

error-generic = 😔 Something went wrong. Please try again — you are still where you were.
button-outdated = This button is no longer active.
unhandled-hint = I did not understand that. Send /start to see what you can buy.
rate-limited = Too many messages at once. Please wait a few seconds.

## Referrals: "Invite friends"
menu-invite = 👥 Invite friends
invite-view =
    👥 <b>Invite friends</b>

    Share your link. When a friend who comes through it gets an order delivered, { $percent }% of its price goes to your wallet in the bot.

    Your link: { $link }

    Friends joined: <b>{ $joined }</b>
    Their delivered orders: <b>{ $orders }</b>
    Earned: <b>{ $earned }</b>
invite-share = 📤 Share the link
invite-joined = 👋 Welcome! You came through a friend's invitation.
invite-own-link = This is your own invite link: share it with friends, it does nothing for you.
invite-unknown = This invite link is not valid (perhaps it was copied incompletely). You can still order as usual.
invite-off = Invitations are not available in this shop.
referral-credited = 👥 <b>+{ $amount }</b> to your wallet from your friend's order. Balance: <b>{ $balance }</b>

## Bans
banned = This shop no longer serves you.
private-only = 🛍 The shop is in a private chat with me: open @{ $bot } and send /start there.
## Promo codes on a quoted order
promo-ask = 🎟 Send your promo code for order #{ $id }. Apply it before choosing how to pay.
promo-applied = ✅ Code { $code } applied: −{ $discount }. New price: { $price }. Pay with the buttons on the order card.
promo-cancelled = Promo code not applied. The order card is unchanged.
promo-try-again = Send another code, or tap Cancel.
promo-refused-unknown = ⛔ There is no such promo code. Check the spelling (letters, digits, "-" and "_").
promo-refused-disabled = ⛔ This promo code is no longer valid.
promo-refused-not_started = ⛔ This promo code is not valid yet.
promo-refused-ended = ⛔ This promo code has expired.
promo-refused-product = ⛔ This promo code does not apply to this product.
promo-refused-min_order = ⛔ This promo code needs an order of at least { $min }.
promo-refused-exhausted = ⛔ This promo code has been used up.
promo-refused-customer_limit = ⛔ You have already used this promo code as many times as it allows.
promo-refused-no_discount = ⛔ This order is already at its lowest price: the code gives no discount here.
promo-refused-already = ⛔ A promo code is already applied to this order.
promo-refused-payment_started = ⛔ A payment page was already made for this order with its old price, so a code can no longer change it. Apply a code before choosing how to pay: cancel this order and order again.
promo-refused-not_quoted = ⛔ This order can no longer be changed (it was paid, cancelled or has expired).

## Support line (/support, /paysupport, the "Contact support" button)

support-btn = ✉️ Contact support
support-intro = ✉️ <b>Writing to support</b>
    Send your question here — text, photos or files, in one or more messages; the shop's operators answer in this chat. Add your order number (#…) if it is about an order.
    /cancel stops writing to support.
support-sent-first = ✅ Sent to support. Write more if you like; the answer comes in this chat. /cancel stops writing to support.
support-sent = ✅ Sent to support.
support-unsupported = ⚠️ Support takes text, photos and files; stickers, voice messages, videos and the like are not passed on. Please describe it in words.
support-not-delivered = ⚠️ Support cannot be reached right now; nothing was sent. Please try again later.
support-left = You stopped writing to support. /support to write again.
support-answer = 💬 <b>Support:</b> { $text }

## Field names (top-up fields of games, delivery details)

field-uid = UID
field-user_id = User ID
field-player_id = Player ID
field-player_tag = Player tag
field-server = Server
field-zone_id = Zone ID
field-region = Region
field-account = Account
field-login = Login
field-package = Package
field-quantity = Quantity
field-amount = Amount
field-amount_rub = Amount, ₽
