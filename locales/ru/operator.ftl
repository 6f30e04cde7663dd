## Инструменты оператора (/balance, /orders, /order, /stats, оповещения). Видны только OPERATOR_IDS.

# Язык этого файла: по нему форматируются числа в оповещениях.
op-locale = ru

# /order в меню команд оператора (добавьте "order" в OPERATOR_COMMANDS в src/bot/commands.ts).
cmd-op-order = order
    .description = Оператор: заказ по id или #номеру

## Общие слова
op-btn-open = 🔎 Открыть заказ
op-btn-refresh = 🔄 Обновить
op-btn-prev = ◀️ Новее
op-btn-next = Старше ▶️
op-btn-page = { $page } / { $pages }
op-btn-recheck = 🔁 Проверить сейчас
op-btn-resend = ✉️ Отправить уведомление снова
op-btn-refunded = 💸 Отметить возврат
op-btn-refunded-yes = ✅ Да, деньги возвращены
op-btn-refunded-no = ✖️ Отмена

op-checked-at = <i>Проверено в { $time } UTC</i>
op-times-utc = <i>Время указано в UTC.</i>

op-state-draft = 📝 черновик
op-state-quoted = 🧾 выставлен
op-state-paid = 💳 оплачен
op-state-pending = ⏳ в доставке
op-state-delivered = ✅ доставлен
op-state-failed = ❌ не доставлен
op-state-rejected = ⛔ отклонён
op-state-expired = ⌛ истёк
op-state-cancelled = 🚫 отменён
op-flag-stuck = 🐢 завис
op-flag-refund-needed = 💸 нужен возврат

op-refund-none = нет
op-refund-done = сделан
op-refund-needed = ⚠️ нужен

op-payment-open = открыт
op-payment-paid = оплачен
op-payment-cancelled = отменён

op-rail-stars = Telegram Stars
op-rail-invoice = счёт Telegram
op-rail-yookassa = ЮKassa
op-rail-cryptopay = Crypto Pay
op-rail-wallet = кошелёк
op-rail-direct = прямое оформление

op-product-stars = ⭐ Звёзды ×{ $qty }
op-product-premium = 👑 Premium { $months } мес.
op-product-gift = { $emoji } Подарок { $title }
op-product-steam = 🎮 Пополнение Steam { $amount }
op-product-neural = { $emoji } { $title }
op-product-game = 🕹 { $title } ×{ $qty }

op-reason-insufficient_funds = недостаточно средств на депозите
op-reason-auth = API-ключ отклонён
op-reason-not_found = заказ неизвестен поставщику
op-reason-bad_request = запрос отклонён как неверный
op-reason-rate_limited = слишком много запросов
op-reason-server = ошибка сервера поставщика
op-reason-network = поставщик недоступен
op-reason-timeout = поставщик не ответил вовремя
op-reason-bad_response = непонятный ответ поставщика

op-reseller-auth = 🔑 <b>API-ключ отклонён.</b> Поставщик ответил 401/403: проверьте RESELLER_API_KEY (ключ могли отозвать).
op-reseller-down = 📡 <b>Сервис поставщика не отвечает.</b> Нажмите «Обновить» через минуту.
op-reseller-unexpected = ❓ <b>Поставщик ответил так, что бот не смог разобрать ответ.</b> Попробуйте позже; подробности в логе.

## /balance
op-balance-title = 💰 <b>Депозит у поставщика</b>
op-balance-amount = Баланс: <b>{ $balance }</b>
op-balance-low = ⚠️ Ниже порога оповещения { $threshold }: пополните депозит, иначе заказы начнут отклоняться.
op-runway-days = ⏳ При темпе последних 7 дней (потрачено { $spent }) его хватит примерно на { $days } { $days ->
    [one] день
    [few] дня
   *[many] дней
}.
op-runway-hours = ⏳ При темпе последних 7 дней (потрачено { $spent }) его хватит примерно на { $hours } { $hours ->
    [one] час
    [few] часа
   *[many] часов
}.
op-runway-over-year = ⏳ При темпе последних 7 дней (потрачено { $spent }) его хватит больше чем на год.
op-runway-empty = ⏳ Тратить больше нечего; за последние 7 дней потрачено { $spent }.
op-runway-none = ⏳ За 7 дней трат не было: прогнозировать не из чего.

## /orders
op-filter-all = Все
op-filter-pending = В доставке
op-filter-delivered = Доставлены
op-filter-failed = Неудачные
op-filter-attention = ⚠️ Внимание
op-orders-title = 📋 <b>Заказы</b> · { $filter } · { $paged ->
    [yes] { $from }–{ $to } из { $total }
   *[no] { $total }
}
op-orders-empty = 📋 <b>Заказы</b> · { $filter }: нет.
op-orders-past-end = 📋 <b>Заказы</b> · { $filter }: на этой странице больше нет заказов. Вернитесь к более новым.

## /order и карточка заказа
op-order-usage = Отправьте <code>/order</code> и номер заказа: полный id или 8 символов, которые покупатель видит на карточке (<code>/order 1a2b3c4d</code>).
op-order-not-found = Заказа <code>{ $id }</code> нет.
op-order-ambiguous = С <code>{ $id }</code> начинается несколько заказов; пришлите id длиннее.
op-card-title = 🧾 <b>Заказ { $ref }</b>
    <code>{ $id }</code>
op-card-state = Состояние: <b>{ $state }</b>
op-card-product = Товар: { $product }
op-card-recipient = Получатель: { $recipient }
op-card-parameters = Параметры: { $params }
op-card-customer = Покупатель: { $link } · id <code>{ $id }</code> · { $username } · язык { $locale }
op-card-chat = Чат: <code>{ $chat }</code>
op-card-wholesale = Оптовая цена: { $wholesale }
op-card-charged = Списано с депозита: { $charged }
op-card-promo = Промокод: <code>{ $code }</code> −{ $discount } (цена без него: { $before })
op-card-price = Цена для покупателя: { $price }
op-card-margin = Маржа: <b>{ $margin }</b>
op-card-payment = Оплата: { $currency } { $amount }
op-card-payment-rail = Оплата: { $currency } { $amount } · { $rail }
op-card-payment-none = Оплата: нет (прямое оформление, в боте с покупателя ничего не списано)
op-card-charge-telegram = Telegram charge id: <code>{ $id }</code>
op-card-charge-provider = Provider charge id: <code>{ $id }</code>
op-card-charge-payment = Id платежа: <code>{ $id }</code>
op-card-provider-payment = Платёж { $rail }: <code>{ $id }</code> · { $status }
op-card-extra-charge = Повторный платёж: { $amount } · { $rail } · <code>{ $id }</code> · возврат { $refund }
op-card-extra-refund-id = ↳ id возврата: <code>{ $id }</code>
op-card-refund = Возврат: { $refund }
op-card-refund-id = Id возврата у провайдера: <code>{ $id }</code>
op-card-reseller-status = Статус у поставщика: <code>{ $status }</code>
op-card-reject-reason = Оплата отклонена: { $reason }
op-card-reject-balance = Депозит в тот момент: { $balance }
op-card-error = Ошибка: <i>{ $error }</i>
op-card-payload = Выдано:
op-card-payload-too-long = • (слишком длинно для показа; проверьте заказ у поставщика)
op-card-notified = Покупатель уведомлён: { $time } UTC
op-card-not-notified = Покупатель уведомлён: ещё нет
op-card-timeline = <b>Хронология (UTC)</b>
op-card-expires = Счёт истекает: { $time }
op-card-updated = Последнее изменение: { $time }

op-refund-confirm = Деньги за этот платёж вернули покупателю вне бота? Подтверждайте только после возврата.
op-recheck-done = Проверено: { $state }
op-recheck-unchanged = Проверено: без изменений ({ $state })
op-recheck-not-tracking = Проверять нечего: заказ { $state }.
op-recheck-slow = ⏳ Поставщик отвечает медленно; результат придёт в чат.
op-resend-done = Уведомление покупателю будет отправлено снова.
op-resend-not-final = Отправлять нечего: у заказа ещё нет итога.
op-refunded-done = Возврат отмечен.
op-refunded-not-needed = Возврат по этому заказу не требовался.
op-gone = Этого заказа больше нет.
op-archived = 🗄 В архиве: заказ ушёл из базы бота по истечении срока хранения и хранится в архивном файле за { $month }. Только просмотр.

## /stats
op-stats-title = 📊 <b>Статистика</b> (заказы по времени создания, UTC)
op-stats-today = Сегодня (с 00:00 UTC)
op-stats-week = Последние 7 дней
op-stats-month = Последние 30 дней
op-stats-orders = Заказов: { $orders } · оплачено { $paid } · доставлено { $delivered } · неудачных { $failed }
op-stats-money = Выручка { $revenue } · опт { $cost } · маржа <b>{ $margin }</b>
op-stats-note = <i>Выручка, оптовая стоимость и маржа считаются только по доставленным заказам.</i>

## Оповещения
op-alert-reason = Причина: <i>{ $reason }</i>
op-alert-order = Заказ <code>{ $ref }</code> · { $product }{ $recipient }
op-alert-order-customer = 👤 { $customer } (id <code>{ $id }</code>) · { $price } · { $state }
op-alert-order-id = id заказа: <code>{ $id }</code> (в базе нет)
op-alert-money-none = С покупателя ничего не списано.
op-alert-money-refunded = Платёж покупателя ({ $amount }) возвращён.
op-alert-money-stars-auto = { $amount } покупателя возвращаются автоматически.
op-alert-money-refund-by-hand = ⚠️ Платёж покупателя ({ $amount }) нужно вернуть вручную.

op-alert-delivery-failed = ❌ <b>Доставка не удалась.</b> Поставщик не смог выполнить заказ.
op-alert-delivery-failed-todo = Что делать: посмотрите причину; если покупателю всё ещё нужен товар, он может заказать снова (например, с исправленным получателем).

op-alert-pay-rejected = ⛔ <b>Оплата отклонена.</b> Покупатель заплатил, но поставщик отказался списать депозит.
op-alert-reject-kind = Почему: { $kind }
op-alert-balance-then = Депозит в тот момент: <b>{ $balance }</b>
op-alert-balance-unknown = Депозит в тот момент прочитать не удалось.
op-alert-todo-topup = Что делать: пополните депозит; до тех пор новые заказы отклоняются.
op-alert-pay-rejected-todo = Что делать: выясните причину у поставщика, прежде чем покупатель закажет снова.

op-alert-low-balance = 🪫 <b>Депозит на исходе:</b> осталось { $balance }, это ниже порога { $threshold }.
op-alert-low-balance-todo = Что делать: пополните депозит в боте поставщика; когда он кончится, заказы будут отклоняться. Пока депозит низкий, это оповещение приходит не чаще раза в час.

op-alert-stuck = 🐢 <b>Заказ завис.</b> Нет итогового статуса от поставщика с момента оплаты { $since } UTC.
op-alert-stuck-todo = Что делать: откройте заказ и нажмите «Проверить сейчас»; если он так и остаётся в доставке, спросите поддержку поставщика по этому id.

op-alert-refund-needed = 💸 <b>Нужен возврат:</b> покупатель заплатил { $amount }, и бот не смог вернуть деньги сам.
op-alert-charge-telegram = Telegram charge id: <code>{ $id }</code>
op-alert-charge-provider = Provider charge id: <code>{ $id }</code>
op-alert-charge-payment = Id платежа: <code>{ $id }</code>
op-alert-refund-needed-todo = Что делать: верните платёж через платёжного провайдера, затем нажмите «Отметить возврат» в заказе.
op-alert-refund-needed-stars-todo = Что делать: верните звёзды вручную (refundStarPayment с charge id выше), затем нажмите «Отметить возврат» в заказе.

op-alert-reseller-auth = 🔑 <b>Поставщик отклонил API-ключ</b> (HTTP { $status } на { $endpoint }).
op-alert-reseller-auth-todo = Что делать: проверьте RESELLER_API_KEY; если ключ отозван, выпустите новый в боте поставщика и перезапустите бота магазина. До тех пор заказы не создаются и не оплачиваются. Это оповещение приходит не чаще раза в 10 минут.

op-alert-reseller-down = 📡 <b>Поставщик не отвечает</b>: { $checks } { $checks ->
    [one] проверка депозита подряд осталась
    [few] проверки депозита подряд остались
   *[many] проверок депозита подряд остались
} без ответа (последняя: HTTP { $status } на { $endpoint }).
op-alert-reseller-down-todo = Оплаченные заказы ждут поставщика и пойдут дальше сами, когда он ответит; новые заказы тем временем не создаются. Проверьте состояние поставщика и RESELLER_API_URL; /balance покажет, когда он снова ответит. Это оповещение приходит не чаще раза в час, пока сбой длится.

op-alert-duplicate = 💳 <b>Повторный платёж</b> за уже оплаченный заказ.
op-alert-extra-charge = Платёж { $amount } · <code>{ $id }</code> · возврат { $refund }
op-alert-duplicate-todo = Что делать: звёзды возвращаются автоматически; платёж через провайдера или неудавшийся возврат звёзд нужно вернуть вручную.
op-alert-duplicate-unknown = 💳 <b>Платёж за неизвестный заказ.</b> Заказа с таким id у бота нет.
op-alert-duplicate-unknown-todo = Что делать: звёзды возвращены автоматически; платёж через провайдера верните вручную.

## /wallet <id пользователя>: кошелёк покупателя и поправки
cmd-op-wallet = wallet
    .description = Оператор: кошелёк покупателя (/wallet <id пользователя>)
op-wallet-usage = Пришлите <code>/wallet</code> и Telegram id покупателя: <code>/wallet 123456789</code>. Без id показывается ваш собственный кошелёк.
op-wallet-not-offered = 👛 В этом магазине нет кошелька (в CHECKOUT нет <code>wallet</code>).
op-wallet-title = 👛 <b>Кошелёк покупателя</b> <code>{ $user }</code>
op-wallet-balance = Баланс: <b>{ $balance }</b>
op-wallet-empty = Записей нет.
op-wallet-entries = { $paged ->
    [yes] Записи { $from }–{ $to } из { $total }
   *[no] Записи ({ $total })
} (даты UTC):
op-wallet-by = внёс <code>{ $operator }</code>
op-wallet-btn-adjust = ✏️ Поправить
op-wallet-btn-confirm = ✅ Подтвердить
op-wallet-btn-cancel = ✖️ Отмена
op-wallet-ask-amount = ✏️ <b>Поправка кошелька</b> <code>{ $user }</code>
    Баланс: { $balance }.
    Пришлите сумму в рублях со знаком: <code>+150</code> — зачислить, <code>-20.50</code> — списать.
op-wallet-ask-note = ✏️ <b>{ $amount }</b> для <code>{ $user }</code>.
    Пришлите причину, не длиннее { $max } символов. Покупатель её увидит.
op-wallet-confirm = ❓ <b>Провести поправку?</b>
    Покупатель: <code>{ $user }</code>
    Сумма: <b>{ $amount }</b>
    Причина: { $note }
    Баланс сейчас: { $balance }
op-wallet-rule-amount = Пришлите сумму в рублях со знаком, не ноль, не больше 1 000 000, не больше двух знаков после запятой: <code>+150</code>, <code>-20.50</code>.
op-wallet-rule-note = Причина обязательна: одна строка, не длиннее 200 символов.
op-wallet-insufficient = ⛔ Отказано: баланс { $balance }, списать { $amount } нельзя. Ничего не изменилось.
op-wallet-limit = ⛔ Отказано: баланс превысил бы предел кошелька. Ничего не изменилось.
op-wallet-conflict = ⛔ Отказано: номер этой поправки уже использован для другой операции. Ничего не изменилось; начните заново.
op-wallet-done = ✅ Проведено: { $amount }. Баланс: { $balance }.
op-wallet-already-done = Эта поправка уже проведена ({ $amount }). Баланс: { $balance }.
op-wallet-already = Эта поправка уже проведена.
op-wallet-outdated = Это подтверждение больше не действует.
op-wallet-cancelled = ✖️ Поправка отменена. Ничего не изменилось.

## /export: заказы за период файлом CSV
cmd-op-export = export
    .description = Оператор: заказы за период файлом CSV
op-export-choose = 📤 <b>Выгрузка заказов в CSV</b>
    Выберите период или пришлите дни сами, «с» и «по» включительно (UTC, не больше { $max } дней):
    <code>/export 2026-11-01 2026-11-23</code>
op-export-today = Сегодня
op-export-7d = Последние 7 дней
op-export-30d = Последние 30 дней
op-export-this-month = Этот месяц
op-export-last-month = Прошлый месяц
op-export-preparing = Готовлю файл…
op-export-caption = 📤 Заказов: { $rows }, созданы { $from } – { $to } (UTC, оба дня включены).
op-export-busy = ⏳ Предыдущая выгрузка ещё готовится; дождитесь её файла и запросите снова.
op-export-too-large = ⛔ Заказы за { $from } – { $to } не помещаются в 50 МБ — предел Telegram для файла. Ничего не отправлено; выгрузите период покороче.
op-export-bad-date = ⛔ <code>{ $value }</code> — не дата. Пришлите дни в виде ГГГГ-ММ-ДД (UTC), «с» и «по» включительно: <code>/export 2026-11-01 2026-11-23</code>, или один день: <code>/export 2026-11-05</code>. Ничего не отправлено.
op-export-too-many = ⛔ Пришлите не больше двух дней, «с» и «по» включительно: <code>/export 2026-11-01 2026-11-23</code>. Ничего не отправлено.
op-export-reversed = ⛔ Первый день позже второго. Сначала ранний день: <code>/export 2026-11-01 2026-11-23</code>. Ничего не отправлено.
op-export-too-long = ⛔ Одна выгрузка — не больше { $max } дней. Пришлите период покороче: <code>/export 2026-11-01 2026-11-23</code>. Ничего не отправлено.

op-alert-product-paused = ⏸ <b>{ $product } на паузе:</b> депозита ({ $balance }) не хватает на заказ с оптовой ценой { $needed }. Покупатели видят, что товар временно недоступен; ничего не списано.
op-alert-product-paused-todo = Что сделать: пополните депозит в боте поставщика. Товар вернётся сам в течение минуты после того, как депозита станет хватать; вам придёт сообщение.
op-alert-product-resumed = ▶️ <b>{ $product } снова в продаже:</b> депозит ({ $balance }) снова покрывает его.

## /customer <id or @username>: one customer's file
cmd-op-customer =
    .description = Оператор: заказы, кошелёк, рефералы, заметки, бан клиента (/customer <id или @имя>)
op-customer-usage = Отправьте <code>/customer</code> и Telegram id клиента или его @username: <code>/customer 123456789</code> или <code>/customer @name</code>.
op-customer-unknown-name = Клиент с именем @{ $name } боту не писал (или уже сменил имя). Попробуйте его id.
op-customer-title = 👤 <b>Клиент</b> id <code>{ $id }</code> · { $name } · { $first }
op-customer-banned = 🚫 <b>Заблокирован</b> оператором id <code>{ $by }</code> { $time } UTC
op-customer-balance = 👛 Кошелёк: <b>{ $balance }</b>
op-customer-orders = 📦 <b>Заказы</b> (всего { $total }; последние):
op-customer-referrals = 👥 <b>Рефералы</b>: пригласил { $by } · пришло по его ссылке: { $joined } · их выполненных заказов: { $orders } · заработано: { $earned }
op-customer-orders-none = 📦 <b>Заказы</b>: нет
op-customer-notes-none = 📝 <b>Заметки</b>: нет
op-customer-notes = 📝 <b>Заметки</b> ({ $total }; последние):
op-customer-note = • { $time } UTC, id <code>{ $by }</code>: { $text }
op-customer-add-note = 📝 Добавить заметку
op-customer-ban = 🚫 Заблокировать
op-customer-unban = ✅ Разблокировать
op-customer-wallet = 👛 Кошелёк
op-customer-refresh = 🔄 Обновить
op-customer-note-ask = Отправьте заметку о клиенте id <code>{ $id }</code> (не больше { $max } символов).
op-customer-note-cancel = Отмена
op-customer-note-cancelled = Заметка не добавлена.
op-customer-note-length = Заметка — от 1 до { $max } символов; в этой { $got }.
op-customer-note-saved = ✅ Заметка сохранена.
op-customer-ban-operator = Операторов блокировать нельзя.
op-customer-ban-done = Заблокирован. Клиенту сообщат один раз, дальше бот его не слышит.
op-customer-ban-already = Уже заблокирован.
op-customer-unban-done = Разблокирован.
op-customer-unban-already = Не был заблокирован.
## /prices: наценки, минимальная маржа, округление, включение товаров
cmd-op-prices = prices
    .description = Оператор: цены и товары
op-prices-title = 💰 <b>Цены и товары</b>
    Изменение действует со следующего расчёта; уже показанные заказы сохраняют свою цену.
op-prices-kind = { $state } { $kind }: наценка { $markup }
op-prices-on = ✅ продаётся
op-prices-off = ⛔ выключен
op-prices-items = <b>Наценки отдельных позиций</b> (вместо наценки товара):
op-prices-item = • <code>{ $ref }</code>: { $markup }
op-prices-no-items = нет
op-prices-items-more = … и ещё { $count } (отправьте позицию с «-», чтобы убрать её наценку)
op-prices-margin = Минимальная маржа: { $margin } сверх оптовой цены
op-prices-rounding = Округление вверх: { $rounding }
op-prices-rounding-rub = до 1 ₽
op-prices-rounding-ten = до 10 ₽
op-prices-rounding-kopeck = нет (копейки)
op-prices-changes = <b>Последние изменения</b> (UTC):
op-prices-no-changes = пока нет
op-prices-change = { $at } · { $by } · { $what }: { $from } → { $to }
op-prices-value-none = по умолчанию
op-prices-what-markup = наценка: { $kind }
op-prices-what-on = { $kind }
op-prices-what-item = наценка <code>{ $ref }</code>
op-prices-what-margin = минимальная маржа
op-prices-what-rounding = округление
op-prices-btn-turn-off = ⛔ Выключить
op-prices-btn-turn-on = ✅ Включить
op-prices-btn-item = 🏷 Наценка позиции…
op-prices-btn-margin = Мин. маржа: { $margin }…
op-prices-ask-markup = Пришлите наценку для «{ $kind }» в процентах, от 0 до { $max }, например <code>12.5</code>.
op-prices-ask-margin = Пришлите минимальную маржу в рублях, от 0 до { $max }, например <code>50</code> или <code>49.90</code>. Любая цена будет не меньше оптовой плюс эта сумма.
op-prices-ask-item = Пришлите позицию и её наценку в процентах:
    <code>gift:&lt;id подарка&gt; 15</code>, <code>neural:&lt;код&gt; 20</code> или <code>game:&lt;product ref&gt; 8</code>.
    <code>game:&lt;product ref&gt; -</code> убирает собственную наценку позиции (снова действует наценка товара).
op-prices-rule-percent = Наценка — число процентов от 0 до 1000, не более двух знаков после запятой: <code>12.5</code>.
op-prices-rule-margin = Маржа — число рублей от 0 до 100 000, не более двух знаков после запятой: <code>50</code>, <code>49.90</code>.
op-prices-rule-item = Пришлите позицию (<code>gift:…</code>, <code>neural:…</code> или <code>game:…</code>; после двоеточия до 64 букв, цифр и <code>_.:-</code>), пробел и процент от 0 до 1000 или <code>-</code>.
op-prices-rule-item-unknown = Такого товара сейчас нет в каталоге: проверьте его id (id подарка, код ИИ-сервиса) и пришлите снова.
op-prices-saved = ✅ Сохранено. Следующий расчёт использует это.
op-prices-unchanged = Ничего не изменилось: так уже было.
op-prices-cancelled = ✖️ Отменено. Ничего не изменилось.

## /promo: промокоды
cmd-op-promo = promo
    .description = Оператор: промокоды
op-promo-title = 🎟 <b>Промокоды</b>
op-promo-help = Создать: <code>/promo new SPRING 10% for=stars,gift limit=100 per=1 from=2026-03-01 to=2026-03-31 min=500</code>
    (<code>10%</code> или скидка в рублях, например <code>150</code>; любой параметр можно опустить: все товары, без лимитов, без дат, любой заказ).
    Одноразовые коды: <code>/promo batch 20 150 to=2026-12-31</code> (не больше 100). Выключить: <code>/promo off SPRING</code>.
op-promo-none = Промокодов пока нет.
op-promo-all-products = все товары
op-promo-used = использован { $used }
op-promo-used-of = использован { $used }/{ $max }
op-promo-per = { $per } на покупателя
op-promo-min = от { $min }
op-promo-off = ⛔ выключен
op-promo-btn-off = ⛔ Выключить { $code }
op-promo-created = ✅ Промокод создан:
op-promo-batch = ✅ Одноразовых кодов: { $count } (нажмите на код, чтобы скопировать):
op-promo-taken = ⛔ Код <code>{ $code }</code> уже есть. Ничего не создано; выберите другое название.
op-promo-disabled = ✅ <code>{ $code }</code> выключен. Заказы, к которым он применён, сохраняют цену.
op-promo-unknown = ⛔ Кода <code>{ $code }</code> нет.
op-promo-usage = Неизвестное действие: используйте <code>new</code>, <code>batch</code>, <code>off</code> или <code>list</code>. Ничего не изменилось.
op-promo-rule-code = Код — 4–32 буквы, цифры, «-» или «_» (хранится заглавными). Ничего не изменилось.
op-promo-rule-discount = Скидка — процент от 0.01% до 100% (<code>10%</code>) или рубли (<code>150</code>, <code>149.90</code>). Ничего не изменилось.
op-promo-rule-for = <code>for=</code> — виды товаров через запятую: stars, premium, gift, steam, neural, game. Ничего не изменилось.
op-promo-rule-count = <code>{ $key }=</code> — целое число использований (0 — без лимита). Ничего не изменилось.
op-promo-rule-date = <code>{ $key }=</code> — день UTC в виде ГГГГ-ММ-ДД. Ничего не изменилось.
op-promo-rule-dates = Последний день раньше первого. Ничего не изменилось.
op-promo-rule-past = <code>to=</code> { $day } уже прошёл (дни по UTC): такой код нельзя было бы применить. Укажите день не раньше сегодняшнего. Ничего не изменилось.
op-promo-rule-min = <code>min=</code> — сумма в рублях, например <code>500</code>. Ничего не изменилось.
op-promo-rule-option = Неизвестный параметр <code>{ $option }</code>: используйте for=, limit=, per=, from=, to=, min=. Ничего не изменилось.
op-promo-rule-repeated = <code>{ $key }=</code> указан дважды: укажите каждый параметр один раз. Ничего не изменилось.
op-promo-rule-batch = В пакете от 1 до { $max } кодов: <code>/promo batch 20 10%</code>. Ничего не изменилось.

## /broadcast: рассылка оператора покупателям

cmd-op-broadcast = broadcast
    .description = Оператор: рассылка покупателям

bc-not-available = ⛔ Рассылки в этом процессе недоступны.
bc-ask-content = 📣 <b>Новая рассылка</b>
    Пришлите сообщение: текст с форматированием или фото с подписью.
    Кнопки-ссылки — в последних строках, по одной в строке: <code>Надпись - https://example.com</code>
bc-ask-audience = 👥 Кому отправить?
bc-aud-all = Всем
bc-aud-lang = Язык: { $lang }
bc-aud-recent = Покупали за { $days } дн.
bc-aud-product = Покупали { $product } (за { $days } дн.)
bc-preview = 📣 <b>Предпросмотр рассылки</b>
    Аудитория: { $audience } — <b>{ $size }</b> { $size ->
        [one] покупатель
        [few] покупателя
       *[other] покупателей
    } (заблокировавшие бота не учитываются)
    Сообщение: { $kind ->
        [photo] фото
       *[text] текст
    }, кнопок-ссылок: { $buttons }
    Отправьте себе тест, чтобы увидеть его глазами покупателя.
bc-btn-test = 🧪 Тест себе
bc-btn-send = 📣 Отправить { $size }
bc-btn-back = ◀️ Аудитория
bc-btn-cancel = ✖️ Отмена
bc-btn-pause = ⏸ Пауза
bc-btn-resume = ▶️ Продолжить
bc-btn-stop = ✖️ Отменить рассылку
bc-test-sent = Тест отправлен вам.
bc-dropped = Рассылка отменена, ничего не отправлено.
bc-outdated = Этот экран рассылки устарел или уже использован; ничего не изменено.
bc-nobody = В этой аудитории никого нет; ничего не отправлено.
bc-rule-empty = В сообщении нет текста. Пришлите текст или фото.
bc-rule-kind = Рассылка — это текст или фото с подписью. Пришлите одно из них.
bc-rule-button-url = Адрес кнопки должен начинаться с http:// или https://. Ничего не сохранено; пришлите сообщение снова.
bc-rule-buttons-many = Не больше 8 кнопок. Ничего не сохранено; пришлите сообщение снова.
bc-rule-label = Надпись кнопки — не больше 64 символов. Ничего не сохранено; пришлите сообщение снова.
bc-progress = 📣 <b>Рассылка</b> <code>{ $id }</code>: { $status ->
        [running] отправляется…
        [paused] ⏸ на паузе
        [cancelled] ✖️ отменена
       *[done] ✅ завершена
    }
    Аудитория: { $audience }, получателей: { $total }
    Отправлено: <b>{ $sent }</b> · Заблокировали бота: <b>{ $blocked }</b> · Ошибки: <b>{ $failed }</b> · Ещё не отправлено: <b>{ $left }</b>

## Forum topics of the operators' group (OPERATOR_CHAT_ID), one per alert kind
op-topic-alert-delivery_failed = ❌ Несостоявшиеся доставки
op-topic-alert-pay_rejected = ⛔ Отказы в оплате
op-topic-alert-low_balance = 🪫 Депозит
op-topic-alert-stuck = 🐢 Зависшие заказы
op-topic-alert-refund_needed = 💸 Нужен возврат
op-topic-alert-reseller_auth = 🔑 Ключ API реселлера
op-topic-alert-reseller_down = 📡 Поставщик не отвечает
op-topic-alert-duplicate_payment = 💳 Повторные оплаты
op-topic-alert-product_paused = ⏸ Товары на паузе

# A member of the operators' group who is not in OPERATOR_IDS pressed an operator button.
op-not-operator = Эта кнопка только для операторов магазина.
op-rule-text-only = Пожалуйста, ответьте текстовым сообщением.
op-private-only = ⚙️ { $command } работает в личном чате с ботом: откройте @{ $bot } и отправьте команду там.

## Поддержка: сообщения клиентов в чатах операторов
op-support-header = ✉️ <b>Поддержка</b> · { $name }{ $username } (id <code>{ $id }</code>)
op-support-orders = Последние заказы:
op-support-no-orders = Заказов пока нет.
op-support-how-to-answer = <i>Ответьте на это сообщение или на сообщение клиента (в форуме — просто пишите в этой теме); клиент получит ответ как «Поддержка: …».</i>
op-support-delivered = ✅ Отправлено клиенту.
op-support-unreachable = ❌ Не доставлено: клиент заблокировал бота или удалил чат.
op-support-unsupported = ⚠️ Клиенту передаются только текст, фото и файлы; ничего не отправлено.
op-support-not-operator = Отвечать клиентам могут только операторы магазина (OPERATOR_IDS); ничего не отправлено.
op-unknown-user = ⚠️ С этого id боту никогда не писали: проверьте его, прежде чем блокировать или начислять.
