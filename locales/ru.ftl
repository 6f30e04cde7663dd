## Commands (descriptions shown in Telegram's command menu)

cmd-start = start
    .description = Главное меню: выбрать покупку
cmd-orders = orders
    .description = Мои заказы
cmd-wallet = wallet
    .description = Мой кошелёк: баланс и пополнение
cmd-language = language
    .description = Сменить язык
cmd-cancel = cancel
    .description = Отменить текущий шаг или неоплаченный заказ
cmd-help = help
    .description = Как устроен магазин
cmd-support = support
    .description = Написать в поддержку магазина
cmd-paysupport = paysupport
    .description = Помощь с оплатой
cmd-op-balance = balance
    .description = Оператор: баланс депозита
cmd-op-orders = orders
    .description = Оператор: все заказы, фильтры, перепроверка
cmd-op-stats = stats
    .description = Оператор: статистика продаж

## Main menu

menu-title = 🛍 <b>Что хотите купить?</b>
    Выберите товар ниже. Цену вы увидите до оплаты.
menu-title-none = 🛍 <b>Сейчас ничего не продаётся.</b>
    Магазин ненадолго приостановил продажи: загляните позже. Ваши заказы — в 📦 Мои заказы.
menu-stars = ⭐ Telegram Stars
menu-premium = 💎 Telegram Premium
menu-gift = 🎁 Подарки
menu-steam = 🎮 Пополнение Steam
menu-neural = 🤖 ИИ-сервисы
menu-game = 🕹 Игры
menu-orders = 📦 Мои заказы
menu-wallet = 👛 Баланс
shop-closed = 🔒 Извините, этот магазин для вас закрыт. Если это ошибка, напишите владельцу магазина.
product-disabled = Этот товар сейчас не продаётся.
product-unavailable-flow = ⛔ Этот товар только что стал недоступен: ничего не заказано и не списано. /start покажет, что есть в продаже.

## Buttons

btn-back = ‹ Назад
btn-cancel = ✖️ Отмена
btn-retry = 🔄 Попробовать ещё раз
btn-cancel-quote = ✖️ Отменить #{ $id }
btn-pay = 💳 Оплатить { $price }
btn-promo = 🎟 Промокод
btn-pay-stars = ⭐ Telegram Stars — { $price }
btn-pay-invoice = 💳 Оплата в Telegram — { $price }
btn-pay-yookassa = 💳 Картой или СБП — { $price }
btn-pay-cryptopay = 🪙 Криптовалютой — { $price }
btn-pay-wallet = 👛 С баланса — { $price }
btn-open-yookassa = 💳 Оплатить { $price } картой или СБП
btn-open-cryptopay = 🪙 Оплатить { $price } криптовалютой
btn-confirm = ✅ Подтвердить заказ
btn-requote = 🔄 Узнать новую цену
btn-to-myself = 🙋 Себе (@{ $username })
btn-prev = ‹ Назад
btn-next = Далее ›

## Flow questions

ask-stars-amount = ⭐ <b>Сколько звёзд?</b>
    Выберите количество или напишите целое число от { $min } до { $max }.
ask-premium-months = 💎 <b>Telegram Premium — на какой срок?</b>
premium-months = { $months } { $months ->
    [one] месяц
    [few] месяца
   *[many] месяцев
}
ask-recipient = 👤 <b>Кому?</b>
    Пришлите имя пользователя Telegram: <code>@name</code>, <code>name</code> или ссылку <code>t.me/name</code>.
ask-recipient-or-self = 👤 <b>Кому?</b>
    Нажмите «Себе» или пришлите имя пользователя Telegram: <code>@name</code>, <code>name</code> или ссылку <code>t.me/name</code>.
ask-gift = 🎁 <b>Выберите подарок</b>
    На каждой кнопке — подарок, его стоимость в звёздах и цена.
gift-label = { $emoji } { $stars }⭐ · { $price }
gift-label-limited = { $emoji } { $stars }⭐ · { $price } · осталось { $left }
gift-none = 🎁 Сейчас нет подарков в продаже. Загляните позже: /start
ask-steam-login = 🎮 <b>Ваш логин Steam</b>
    Пришлите логин аккаунта Steam, который нужно пополнить (не имя профиля).
ask-steam-amount = 💰 <b>На какую сумму пополнить?</b>
    Выберите сумму или напишите целое число рублей от { $min } до { $max }.
ask-neural = 🤖 <b>Выберите ИИ-сервис</b>
neural-label = { $emoji } { $title } · { $price }
neural-none = 🤖 Сейчас нет ИИ-сервисов в продаже. Загляните позже: /start
ask-game = 🕹 <b>Выберите игру</b>
game-none = 🕹 Сейчас нет игр в продаже. Загляните позже: /start
ask-game-region = 🌍 <b>{ $game }: выберите регион</b>
game-no-regions = Для этой игры сейчас нет регионов в продаже; выберите другую.
ask-game-package = 📦 <b>{ $game } · { $region }: выберите пакет</b>
game-no-packages = Для этого региона сейчас ничего нет в продаже; выберите другой.
package-label = { $title } · { $price }
ask-game-quantity = 🔢 <b>Сколько штук?</b>
    Выберите число или напишите целое число от { $min } до { $max }.
ask-game-field = ✏️ <b>{ $field }</b>
    Пришлите значение для вашего игрового аккаунта.

## Flow messages

flow-cancelled = ✖️ Отменено. Ничего не заказано. /start — начать заново.
flow-use-buttons = Пожалуйста, выберите кнопкой ниже.
flow-send-text = Пожалуйста, ответьте текстом или кнопкой ниже.
flow-no-command = Это неизвестная команда, а не ответ. Пришлите сам ответ; /cancel — отменить заказ.
flow-too-long = В этом заказе слишком много шагов, поэтому я остановился. /start — начать заново.
catalog-unavailable = ⏳ Поставщик магазина сейчас не отвечает. Попробуйте ещё раз через минуту.
catalog-unavailable-final = ⏳ Поставщик магазина по-прежнему не отвечает. Попробуйте позже: /start
quote-unavailable = ⏳ Поставщик магазина сейчас не отвечает, поэтому цены пока нет. Попробуйте ещё раз — дважды с вас не спишут.
quote-paused = ⏸ Этот товар временно недоступен. Попробуйте чуть позже.
quote-refused-shop = 😔 Магазин сейчас не может принять этот заказ. Попробуйте позже.
quote-refused-request = 😔 Поставщик не принял этот заказ. Проверьте введённые данные и попробуйте снова.
quote-invalid = Поставщик не принял данные: { $reasons }. Ответьте, пожалуйста, ещё раз.
quote-gave-up = 😔 Не удалось узнать цену этого заказа. Попробуйте позже: /start
quote-limit = ✋ Одновременно ждать оплаты может не больше { $max } { $max ->
    [one] неоплаченного заказа
   *[other] неоплаченных заказов
}, а у вас их { $count }. Оплатите один из них или отмените один, чтобы продолжить с этим заказом.

## Input rules

rule-username-empty = Нужно имя пользователя.
rule-username-chars = Имя пользователя Telegram состоит только из латинских букв, цифр и подчёркиваний (_).
rule-username-length = Имя пользователя Telegram — от 5 до 32 символов.
rule-username-start = Имя пользователя Telegram начинается с буквы.
rule-username-end = Имя пользователя Telegram не может заканчиваться подчёркиванием (_).
rule-username-double = В имени пользователя Telegram не бывает двух подчёркиваний подряд (__).
rule-number-format = Пришлите целое число от { $min } до { $max }, только цифры.
rule-number-whole = Пришлите целое число, без дробной части.
rule-number-min = Минимум — { $min }.
rule-number-max = Максимум — { $max }.
rule-login-empty = Нужен логин.
rule-login-spaces = В логине не бывает пробелов.
rule-login-length = Логин — не длиннее { $max } символов.
rule-login-chars = Логин не может содержать &lt;, &gt; и управляющие символы.
rule-field-empty = Значение не может быть пустым.
rule-field-length = Не больше { $max } символов, пожалуйста.
rule-field-one-line = Пришлите значение одной строкой.
rule-input-length = Слишком длинно: не больше { $max } символов, пожалуйста.

## What was ordered

item-stars = ⭐ { $count } { $count ->
    [one] звезда
    [few] звезды
   *[many] звёзд
} Telegram
item-premium = 💎 Telegram Premium на { $months } { $months ->
    [one] месяц
    [few] месяца
   *[many] месяцев
}
item-gift = 🎁 Подарок { $emoji } ({ $title })
item-steam = 🎮 Пополнение Steam на { $amount }
item-neural = { $emoji } { $title }
item-game = 🕹 { $title } × { $count }

## Order card

card-title = 🧾 <b>Заказ #{ $id }</b>
card-recipient = Кому: { $recipient }
card-login = Логин Steam: { $recipient }
card-price = Цена: <b>{ $price }</b>
card-price-promo = Цена: <s>{ $old }</s> <b>{ $price }</b> · 🎟 { $code } −{ $discount }
card-promo-clamped = Скидка уменьшена: заказ не продаётся дешевле, чем он обходится магазину.
card-status-draft = ⏳ Узнаём цену…
card-status-quoted = ⏳ Ждём оплату. Цена действует { $minutes } мин.
card-status-quoted-direct = ⏳ Ждём подтверждения. Цена действует { $minutes } мин.
card-status-paid = 💳 Оплата получена. Передаём заказ поставщику…
card-status-pending = 🚚 Доставляется…
card-status-delivered = ✅ Доставлено.
card-status-failed = ❌ Доставка не удалась.
card-status-rejected = ❌ Поставщик отказал в заказе.
card-status-expired = ⌛ Цена устарела. Узнайте новую цену, чтобы заказать.
card-status-cancelled = ✖️ Отменён.

## Order status (lists)

status-draft = узнаём цену
status-quoted = ждёт оплаты
status-paid = оплачен
status-pending = доставляется
status-delivered = доставлен
status-failed = не доставлен
status-rejected = отклонён
status-expired = цена устарела
status-cancelled = отменён

## Payment

invoice-title = Заказ #{ $id }
invoice-description = { $item } · для { $recipient }
invoice-description-login = { $item } · логин Steam { $login }
pay-not-found = Этот заказ не ваш или больше не существует.
pay-expired = Цена устарела.
pay-not-quoted = Этот заказ уже нельзя оплатить: он { $status }.
requote-failed = 😔 Сейчас не удалось узнать новую цену. Попробуйте позже: /start
confirm-ok = Заказ подтверждён.
confirm-already = Этот заказ уже подтверждён.
cancel-quote-done = ✖️ Неоплаченный заказ отменён.
cancel-nothing = Отменять нечего. /start — посмотреть, что можно купить.
cancel-input-done = ✖️ Отменено: я больше не жду этот ответ. Больше ничего не изменилось.
cancel-ok = Заказ отменён.
cancel-too-late = Этот заказ уже нельзя отменить: он { $status }.
precheckout-not_found = Такого заказа нет. Начните заново: /start.
precheckout-not_quoted = Этот заказ уже нельзя оплатить.
precheckout-expired = Цена устарела. Узнайте новую цену в чате.
precheckout-wrong_user = Этот счёт выставлен другому человеку.
precheckout-wrong_amount = Цена заказа изменилась после этого счёта. Оплатите кнопками на карточке заказа: там текущая цена.
precheckout-timeout = Магазин не успел проверить заказ. Попробуйте ещё раз.
pay-rail-unavailable = Этот способ оплаты сейчас недоступен. Выберите другой.
pay-link-failed = Не удалось открыть страницу оплаты. Попробуйте через минуту или выберите другой способ.
pay-link-busy = Готовим ссылку на оплату, секунду…
pay-link-yookassa = Заказ #{ $id }: оплатите <b>{ $price }</b> картой или через СБП на странице ЮKassa. Карточка заказа здесь покажет оплату, как только она поступит.
pay-link-cryptopay = Заказ #{ $id }: оплатите <b>{ $price }</b> в любой монете в @CryptoBot. Карточка заказа здесь покажет оплату, как только она поступит.
wallet-paid = Оплачено с баланса. Остаток: { $balance }
wallet-insufficient = На балансе { $balance }, заказ стоит { $price }. Пополните баланс командой /wallet или выберите другой способ оплаты.
payment-extra-refunded = Заказ #{ $id } уже был оплачен, поэтому второй платёж ({ $amount }) возвращён.
payment-extra-wallet = Заказ #{ $id } уже был оплачен, поэтому второй платёж ({ $amount }) возвращается на ваш баланс в боте (/wallet).
payment-extra-card = Заказ #{ $id } уже был оплачен, поэтому второй платёж ({ $amount }) возвращается тем же способом, которым вы платили (карта или СБП); банк может показать его через несколько дней.
payment-extra-flagged = Заказ #{ $id } уже был оплачен. Магазин знает об этом и вернёт второй платёж ({ $amount }).

## Refunds

refund-stars-auto = ⭐ { $stars } { $stars ->
    [one] звезда будет возвращена
    [few] звезды будут возвращены
   *[many] звёзд будет возвращено
} автоматически.
refund-stars-done = ⭐ { $stars } { $stars ->
    [one] звезда возвращена
    [few] звезды возвращены
   *[many] звёзд возвращено
}.
refund-rub-shop = 💸 Магазин вернёт вам { $amount }.
refund-rub-shop-contact = 💸 Магазин вернёт вам { $amount }. Вопросы: { $contact }
refund-rub-done = 💸 Магазин вернул вам { $amount }.
refund-wallet-auto = 👛 { $amount } вернутся на ваш баланс в боте.
refund-wallet-done = 👛 { $amount } вернулись на ваш баланс в боте (/wallet).
refund-card-auto = 💸 { $amount } возвращаются тем же способом, которым вы платили (карта или СБП).
refund-card-done = 💸 { $amount } возвращены тем же способом, которым вы платили (карта или СБП); банк может показать их через несколько дней.
refund-none-charged = С вас ничего не списано.

## Final messages

final-delivered = ✅ <b>Заказ #{ $id } доставлен</b>
    { $item }
final-failed = ❌ <b>Заказ #{ $id } не удалось доставить</b>
    { $item }
final-rejected = ❌ <b>Поставщик отклонил заказ #{ $id }</b>
    { $item }
final-reason = Причина: { $reason }
final-no-reason = не указана
final-reason-unavailable = магазин сейчас не может оформить этот заказ
final-support = Поддержка: { $contact }
final-tx = Транзакция: { $tx }
final-codes = { $count ->
    [one] Ваш код:
   *[other] Ваши коды:
}
final-details = Подробности:
final-truncated = … (сокращено; остальное — у поддержки)

## My orders

orders-empty = 📦 У вас пока нет заказов. /start — чтобы что-нибудь купить.
orders-title = 📦 <b>Ваши заказы</b> ({ $paged ->
    [yes] { $from }–{ $to } из { $total }
   *[no] { $total }
})

## Wallet

wallet-not-offered = 👛 В этом магазине нет кошелька. Каждый заказ оплачивается на его карточке.
wallet-private-only = 👛 Кошелёк показывается только в личном чате с ботом.
wallet-title = 👛 <b>Ваш кошелёк</b>
wallet-balance = Баланс: <b>{ $balance }</b>
wallet-empty = Пополнений и списаний пока не было.
wallet-past-end = Здесь записей больше нет.
wallet-entries = { $paged ->
    [yes] Записи { $from }–{ $to } из { $total }:
   *[no] Записи ({ $total }):
}
wallet-reason-topup = пополнение
wallet-reason-order = заказ #{ $id }
wallet-reason-refund = возврат за заказ #{ $id }
wallet-reason-referral = реферальный бонус
wallet-reason-adjustment = поправка магазина: { $note }
wallet-btn-topup = ➕ Пополнить
wallet-btn-newer = ‹ Новее
wallet-btn-older = Старше ›
wallet-btn-other = ✏️ Другая сумма
wallet-topup-ask = ➕ <b>На сколько пополнить?</b>
    Выберите сумму или нажмите «Другая сумма».
wallet-topup-other = ✏️ <b>На сколько пополнить?</b>
    Пришлите целое число рублей от { $min } до { $max }.
wallet-topup-rails = ➕ <b>Пополнение на { $amount }</b>
    Выберите способ оплаты.
wallet-topup-no-rails = Сейчас магазин не принимает оплату пополнений.
wallet-rail-button = { $rail } — { $price }
topup-invoice-title = Пополнение кошелька
topup-invoice-description = Пополнение кошелька в магазине на { $amount }.
topup-link-yookassa = 👛 Пополнение на <b>{ $amount }</b>: оплатите картой или через СБП на странице ЮKassa. Деньги поступят в кошелёк, как только придёт оплата.
topup-link-cryptopay = 👛 Пополнение на <b>{ $amount }</b>: оплатите любой монетой в @CryptoBot. Деньги поступят в кошелёк, как только придёт оплата.
topup-credited = 👛 Кошелёк пополнен: <b>+{ $amount }</b>. Баланс: <b>{ $balance }</b>
topup-unknown = 😔 Оплата пришла, но магазин не нашёл это пополнение. Сотрудники магазина разберутся; если это затянется, напишите в /paysupport.
precheckout-topup-not_found = Такого пополнения нет. Начните заново: /wallet.
precheckout-topup-wrong_user = Этот счёт выставлен другому человеку.
precheckout-topup-wrong_amount = Сумма не совпадает с пополнением. Начните заново: /wallet.

## Payment rails (buttons on order cards and top-ups)

rail-stars = ⭐ Telegram Stars
rail-invoice = 💳 Оплата в Telegram
rail-yookassa = 💳 Картой или СБП
rail-cryptopay = 🪙 Криптовалютой
rail-wallet = 👛 С баланса

## Language

language-choose = Выберите язык:
language-set = ✅ Теперь бот говорит по-русски.

## Help

help-text = 🛍 <b>Как это работает</b>
    1. /start — выберите товар.
    2. Ответьте на пару вопросов (кнопками или текстом); «‹ Назад» и «✖️ Отмена» есть на каждом шаге.
    3. Проверьте карточку заказа с ценой и оплатите.
    4. Карточка показывает ход заказа, а сообщение придёт, когда заказ доставлен.
    /orders — ваши заказы, /support — написать магазину, /language — язык, /cancel — остановить текущий заказ.
help-wallet = 👛 /wallet — ваш баланс в магазине и пополнение; заказ с баланса оплачивается в одно касание, возвраты приходят туда сразу.
paysupport-text = 💳 <b>Помощь с оплатой</b>
    Если с оплатой что-то не так, напишите в поддержку и укажите номер заказа (на карточке, #…).
    Звёзды за заказы, которые не удалось доставить, возвращаются автоматически.
support-contact = Поддержка: { $contact }
support-no-contact = Поддержка: /support — напишите операторам магазина прямо здесь.

## General

error-generic = 😔 Что-то пошло не так. Попробуйте ещё раз — вы там же, где были.
button-outdated = Эта кнопка уже не работает.
unhandled-hint = Я не понял. Отправьте /start, чтобы увидеть, что можно купить.
rate-limited = Слишком много сообщений сразу. Подождите несколько секунд.

## Referrals: "Invite friends"
menu-invite = 👥 Пригласить друзей
invite-view =
    👥 <b>Пригласить друзей</b>

    Поделитесь своей ссылкой. Когда друг, пришедший по ней, получит выполненный заказ, { $percent }% его цены придут на ваш кошелёк в боте.

    Ваша ссылка: { $link }

    Друзей пришло: <b>{ $joined }</b>
    Их выполненных заказов: <b>{ $orders }</b>
    Заработано: <b>{ $earned }</b>
invite-share = 📤 Поделиться ссылкой
invite-joined = 👋 Добро пожаловать! Вы пришли по приглашению друга.
invite-own-link = Это ваша собственная ссылка-приглашение: поделитесь ею с друзьями, вам самим она ничего не даёт.
invite-unknown = Эта ссылка-приглашение недействительна (возможно, она скопирована не полностью). Заказывать можно как обычно.
invite-off = Приглашения в этом магазине недоступны.
referral-credited = 👥 <b>+{ $amount }</b> на ваш кошелёк за заказ друга. Баланс: <b>{ $balance }</b>

## Bans
banned = Этот магазин больше вас не обслуживает.
private-only = 🛍 Магазин — в личном чате со мной: откройте @{ $bot } и отправьте там /start.
## Промокоды к заказу до оплаты
promo-ask = 🎟 Пришлите промокод для заказа #{ $id }. Примените его до выбора способа оплаты.
promo-applied = ✅ Промокод { $code } применён: −{ $discount }. Новая цена: { $price }. Оплатите кнопками в карточке заказа.
promo-cancelled = Промокод не применён. Карточка заказа не изменилась.
promo-try-again = Пришлите другой код или нажмите «Отмена».
promo-refused-unknown = ⛔ Такого промокода нет. Проверьте написание (буквы, цифры, «-» и «_»).
promo-refused-disabled = ⛔ Этот промокод больше не действует.
promo-refused-not_started = ⛔ Этот промокод ещё не действует.
promo-refused-ended = ⛔ Срок действия промокода истёк.
promo-refused-product = ⛔ Этот промокод не действует для этого товара.
promo-refused-min_order = ⛔ Этот промокод действует для заказов от { $min }.
promo-refused-exhausted = ⛔ Этот промокод уже израсходован.
promo-refused-customer_limit = ⛔ Вы уже использовали этот промокод столько раз, сколько он позволяет.
promo-refused-no_discount = ⛔ Этот заказ уже по минимальной цене: промокод не даёт скидки.
promo-refused-already = ⛔ К этому заказу уже применён промокод.
promo-refused-payment_started = ⛔ Для этого заказа уже создана страница оплаты со старой ценой, поэтому промокод её не изменит. Применяйте промокод до выбора способа оплаты: отмените этот заказ и оформите новый.
promo-refused-not_quoted = ⛔ Этот заказ уже нельзя изменить (он оплачен, отменён или истёк).

## Поддержка (/support, /paysupport, кнопка «Написать в поддержку»)

support-btn = ✉️ Написать в поддержку
support-intro = ✉️ <b>Сообщение в поддержку</b>
    Напишите вопрос здесь — текстом, фото или файлом, одним или несколькими сообщениями; операторы магазина ответят в этом чате. Если вопрос о заказе, укажите его номер (#…).
    /cancel — закончить обращение.
support-sent-first = ✅ Отправлено в поддержку. Можно дописать ещё; ответ придёт в этот чат. /cancel — закончить обращение.
support-sent = ✅ Отправлено в поддержку.
support-unsupported = ⚠️ Поддержка принимает текст, фото и файлы; стикеры, голосовые, видео и подобное не передаются. Опишите, пожалуйста, словами.
support-not-delivered = ⚠️ Поддержка сейчас недоступна, ничего не отправлено. Попробуйте позже.
support-left = Обращение в поддержку закончено. /support — написать снова.
support-answer = 💬 <b>Поддержка:</b> { $text }

## Field names (top-up fields of games, delivery details)

field-uid = UID
field-user_id = ID пользователя
field-player_id = ID игрока
field-player_tag = Тег игрока
field-server = Сервер
field-zone_id = ID зоны
field-region = Регион
field-account = Аккаунт
field-login = Логин
field-package = Пакет
field-quantity = Количество
field-amount = Сумма
field-amount_rub = Сумма, ₽
