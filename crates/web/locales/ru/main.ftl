# Страницы по-русски. Каждое сообщение есть и в en/main.ftl, и в fr/main.ftl, с теми же
# переменными (это проверяют тесты крейта).

## Оформление, шапка, ошибки

nav-site = сайт
nav-rules = Правила
nav-organisers = Организаторам
nav-language = язык
search-label = Поиск игроков, турниров и партий
search-placeholder = Игрок, турнир, партия
search-button = Найти
status-400 = Неверный запрос
status-403 = Доступ запрещён
status-404 = Не найдено
status-429 = Слишком много запросов
status-502 = Ошибка шлюза
status-503 = Сервис недоступен
status-other = Ошибка
error-no-page = Такой страницы нет.
error-unreachable = Игровой сервер недоступен; попробуйте чуть позже.
error-server-said = Ответ игрового сервера (на английском):
error-server = Игровой сервер ответил ошибкой.
error-no-tournaments = Этот сервер не показывает турниров.
error-no-ladders = Этот сервер не показывает рейтинг-листов.
error-tournament-id = Номер турнира — целое положительное число.
error-game-id = Номер партии — целое положительное число.
error-player-id = Номер игрока — целое положительное число.
error-no-player = Такого игрока нет.
error-after = after= принимает номер тура (1, 2, …).
error-no-round = В этом турнире нет пар тура { $round }.
error-not-entrant = Этот игрок не участвует в этом турнире.

## Общие слова

none = Нет.
none-found = Ничего не найдено.
white = белые
black = чёрные
playing = идёт
rated = рейтинговая
unrated = нерейтинговая
untimed = без контроля времени
player-number = игрок { $id }
game-number = партия { $id }
tournament-number = Турнир { $id }
round-of = тур { $round } из { $rounds }
players-count = { $count ->
    [one] { $count } участник
    [few] { $count } участника
    [many] { $count } участников
   *[other] { $count } участника
}
points-count = { $count ->
    [one] { $points } очко
    [few] { $points } очка
    [many] { $points } очков
   *[other] { $points } очка
}
date = { $day } { $month ->
    [1] января
    [2] февраля
    [3] марта
    [4] апреля
    [5] мая
    [6] июня
    [7] июля
    [8] августа
    [9] сентября
    [10] октября
    [11] ноября
   *[12] декабря
} { $year }
# The short form: day and month with two digits.
date-short = { $day }.{ $month }.{ $year }
date-time = { $date }, { $time } UTC
col-game = Партия
col-games = Партии
col-white = Белые
col-black = Чёрные
col-turns = Ходы
col-result = Итог
col-board = Доска
col-player = Игрок
col-rating = Рейтинг
col-points = Очки
col-rank = М
col-rank-title = место
col-rank-long = Место
col-tournament = Турнир
col-status = Статус
col-card = Карточка
col-final-rank-title = итоговое место
col-start-rank-title = стартовый номер
col-number = №
col-round-short = Т{ $round }
col-colour = Цвет
col-opponent = Соперник
col-score = Сумма
col-rating-change = Изм. рейтинга
col-won = Победы
col-drawn = Ничьи
col-lost = Поражения
col-was = Было
col-now = Стало
col-by = Кто
col-why = Причина

## Главная

home-title = Идущие партии, турниры и рейтинг-листы
home-live = Идущие партии
home-finished = Недавно завершённые
home-tournaments = Турниры
home-ladders = Рейтинг-листы
home-no-rated = Рейтинговых партий ещё нет.

## Турнир

status-registration = идёт регистрация
status-running = идёт
status-finished = завершён
status-unknown = неизвестно
over-the-board = играется очно
online = играется онлайн
print-link = Печать пар и таблицы
statistics-link = Статистика
standings-before = Турнирная таблица до 1-го тура
standings-after = Турнирная таблица после тура { $round }
standings-nav = таблица после тура
standings-nav-label = После тура:
round-heading = Тур { $round }
crosstable = Кросс-таблица
by-start-rank = по стартовым номерам
by-final-rank = по итоговым местам
cross-white = б
cross-black = ч
bye = свободен
bye-half = пропуск за ½ очка
bye-zero = пропуск за 0 очков
absent = отсутствует
not-paired = без пары
corrections = Исправления результатов
correction-after-pairing = (после жеребьёвки следующего тура: её пары остаются в силе)
tiebreak-rules = Дополнительные показатели — по FIDE C.07, редакция { $text } года. Игроки без рейтинга: { $unrated }.
unrated-drop = показатели по рейтингу (ARO, TPR, PTP, APRO, APPO, RTNG) не учитываются, пока у кого-то нет рейтинга, как требует FIDE
unrated-ignore = показатели по рейтингу учитывают только соперников с рейтингом
unrated-as = считаются игроками с рейтингом { $rating }
print-title = { $name } (печать)
print-back = Назад: { $name }
print-note = каждый лист ниже печатается на отдельной странице.
print-round = { $name }: пары тура { $round }
print-standings = { $name }: таблица после тура { $round }

## Дополнительные показатели (FIDE C.07)

tb-bh-c1 = Усечённый Бухгольц-1: Бухгольц без худшего результата соперника
tb-bh = Бухгольц: сумма очков соперников
tb-fb = предварительный Бухгольц: Бухгольц, где каждая партия последнего тура считается ничьей
tb-aob = средний Бухгольц соперников
tb-sb = Зоннеборн — Бергер: сумма очков каждого соперника, умноженных на очки, набранные против него
tb-ps = прогрессивный подсчёт: сумма очков, набранных к концу каждого тура
tb-ks = Койя: очки, набранные против соперников, набравших не меньше половины очков
tb-de = личная встреча: результаты партий между игроками с равными очками
tb-win = выигранные туры, с игрой или без (считаются и свободный тур, и победа по неявке)
tb-won = партии, выигранные за доской
tb-std = стандартные очки: каждый тур считается как 1, ½ или 0, какова бы ни была система подсчёта
tb-bpg = партии, сыгранные чёрными
tb-bwg = партии, выигранные чёрными
tb-rep = туры, которые игрок решил сыграть
tb-vur = добровольно пропущенные туры (чем меньше, тем выше)
tb-aro = средний рейтинг соперников
tb-tpr = турнирный перформанс
tb-ptp = идеальный турнирный перформанс
tb-apro = средний перформанс соперников
tb-appo = средний идеальный перформанс соперников
tb-rtng = рейтинг игрока
tb-tpn = стартовый номер (чем меньше, тем выше)
tb-unknown = дополнительный показатель из настроек турнира
tb-with-cut = { $meaning }, { $cut }
tb-cut-lowest = { $count ->
    [1] без худшего
   *[other] без { $count } худших
}
tb-cut-median = { $count ->
    [1] без лучшего и худшего
   *[other] без { $count } лучших и { $count } худших
}
tb-cut-other = с отсечением

## Карточка игрока

card-number = Стартовый № { $number }
card-rating = рейтинг { $rating }
card-rank = место { $rank } после тура { $round }
card-withdrawn = выбыл с тура { $round }
card-all-games = все партии и рейтинги
card-rounds = Туры
card-rating-change = Изменение рейтинга в этом турнире: { $change }
card-performance = Турнирный перформанс { $performance } (по FIDE: средний рейтинг соперников { $average } плюс dp за { $score } из { $games } { $games ->
    [one] рейтинговой партии
   *[other] рейтинговых партий
})
card-tiebreaks = Дополнительные показатели после тура { $round }

## Статистика

statistics-title = { $name }: статистика
statistics-none = Пары ещё не составлены ни для одного тура.
chart-round = тур { $round }: побед белых — { $white }, ничьих — { $draws }, побед чёрных — { $black }
chart-legend = Победы белых · ничьи · победы чёрных
stat-round = Тур
stat-round-title = тур
stat-games = Парт.
stat-games-title = сыгранные партии
stat-white-title = победа белых
stat-draw-title = ничья
stat-black-title = победа чёрных
stat-forfeits = Неяв.
stat-forfeits-title = неявки
stat-byes = Проп.
stat-byes-title = пропуски туров
stat-upsets = Сенс.
stat-upsets-title = сенсации: результативные партии, выигранные игроком с меньшим рейтингом
stat-gap = Разн.
stat-gap-title = средняя разница рейтингов соперников
stat-open = Идут
stat-open-title = партии, у которых ещё нет результата
stat-all = Всего

## Партия

game-title = Партия { $id }
game-heading = Партия { $id }: { $white } – { $black }
# The board picture's accessible name: the status line, as the page shows it.
board-title = Доска: { $status }
game-over = Партия окончена: { $summary }
to-move = { $side ->
    [white] Ходят белые
   *[black] Ходят чёрные
}, ход { $turn }
# How a game ended: the score and the reason, or the reason alone.
result-summary = { $score } ({ $reason })
end-goal = гол
end-own-goal = автогол
end-no-legal-turn = нет допустимого хода
end-max-turns = предел числа ходов
end-dead-end = тупик
end-resignation = сдача
end-time = просрочка времени
end-agreement = по соглашению
end-aborted = партия отменена
end-adjudication = решение судьи
end-forfeit = неявка
end-over-the-board = сыграна за доской
time-control = контроль времени { $control }
round-board = тур { $round } · доска { $board }
queue = очередь подбора соперников
clocks = Часы:
clock-white = белые
clock-black = чёрные
untimed-game = Без контроля времени.
white-label = Белые:
black-label = Чёрные:
download-record = Скачать запись партии
turns = Ходы
replay-label = просмотр
replay-showing = Позиция после хода { $shown } из { $total }:
replay-start = « в начало
replay-previous = ◀ назад
replay-next = вперёд ▶
replay-end = в конец »

## Игрок

chart-history = рейтинг с { $from } по { $to }: от { $first } до { $last }, наименьший { $low }, наибольший { $high }
ladder-word = Рейтинг-лист
head-to-head = Личные встречи ({ $count ->
    [one] последняя { $count } рейтинговая партия
    [few] последние { $count } рейтинговые партии
   *[other] последние { $count } рейтинговых партий
})
recent-games = Последние партии
player-card = карточка
player-tournaments = Турниры
game-won = победа
game-lost = поражение
game-drawn = ничья
game-aborted = прервана

## Рейтинг-лист

ladder-title = Рейтинг-лист { $name }
ladder-at-least = Не менее
ladder-rated-games = рейтинговых партий
ladder-filter = Показать
ladder-empty = Здесь нет игроков с рейтингом.
provisional = предварительный
pages = страницы
page-previous = Предыдущая страница
page-top = В начало
page-next = Следующая страница

## Поиск

search-title = Поиск
search-help = Ищите игрока или турнир по названию (или его части), партию или турнир — по номеру.
search-results-title = Поиск: { $query }
search-players = Игроки
search-tournaments = Турниры
search-games = Партии
search-too-long = Запрос — не длиннее { $count } символов.

## Правила

rules-title = Правила
rules-in-english = Текст правил приведён на английском языке.
rules-hanniball-figure = HanniBall: начальная позиция (белые внизу).
rules-paper-figure = Бумажный футбол: поле и мяч в начале игры.

## Консоль организатора: вход, учётная запись

sign-in = Вход
sign-in-name = Имя
sign-in-password = Пароль
sign-in-token-instead = Войти по токену
sign-in-token = Токен игрока (hb_…)
sign-in-with-token = Войти по токену
sign-in-token-note = Токен один раз обменивается на сеанс и не сохраняется.
sign-in-locked = Слишком много неудачных попыток входа с этого адреса; попробуйте снова через { $seconds } с.
sign-in-bad-token = Этот токен недействителен (отозван, просрочен или введён с ошибкой) или это токен администратора, который не открывает сеанс.
sign-in-wrong = Неверное имя или пароль.
sign-in-no-session = Сервер ответил, не открыв сеанса.
error-form-too-large = Форма слишком велика.
sign-out = Выйти
sign-out-failed = Не удалось выйти: { $reason }
sign-out-everywhere = Выйти на всех устройствах
account-title = Учётная запись
account-heading = Учётная запись: { $name }
account-rights = Права: { $rights }.
account-sessions = Сеансы
account-signed-in = Вход
account-where = Где
account-ends = Истекает
account-this-one = (этот)
password-change = Сменить пароль
password-current = Текущий пароль (если он есть)
password-new = Новый пароль (не короче 8 символов)
password-again = Новый пароль ещё раз
password-differ = Новые пароли не совпадают; ничего не изменено.
password-changed = Пароль изменён.
session-this-out = Этот сеанс завершён.
session-out = Тот сеанс завершён.
session-already-out = Тот сеанс уже был завершён.
signed-out-everywhere = { $count ->
    [one] Выход выполнен на всех устройствах ({ $count } сеанс).
    [few] Выход выполнен на всех устройствах ({ $count } сеанса).
   *[other] Выход выполнен на всех устройствах ({ $count } сеансов).
}

## Консоль: мои турниры, создание турнира

console-nav = консоль
console-mine = Мои турниры
console-account = Учётная запись ({ $name })
console-none = Вы пока не организуете ни одного турнира.
console-import-link = Начать турнир из TRF-файла другой программы
console-not-organiser = У вашей учётной записи нет права организатора: попросите администратора сервера выдать его:
console-registration = идёт регистрация
said-unavailable = Сервер недоступен или занят; ничего не изменено. ({ $reason })
said-not-allowed = Не разрешено: { $reason }
field-not-number = { $field }: «{ $text }» — не целое число
field-session = сеанс
field-rounds = число туров
field-round = тур
field-board = доска
field-player = игрок
field-rating = рейтинг
field-bye-points = очки за пропуск
create-heading = Создать турнир
create-name = Название
create-where = Где играется
create-where-board = Очно (результаты вносятся здесь; партии идут в рейтинг, если турнир рейтинговый)
create-where-online = Онлайн (партии на этом сервере, с часами)
create-system = Система
system-swiss = Швейцарская (голландская, FIDE)
system-round-robin = Круговая
system-double-round-robin = Двухкруговая
create-rounds = Число туров (швейцарка)
create-game = Игра
game-paper-football = Бумажный футбол
create-time = Контроль времени, в секундах: начальное+добавка (онлайн; пусто — без контроля)
create-time-example = 600+5 или 300+0.5
create-rated = Рейтинговый
create-tiebreaks = Дополнительные показатели по порядку (пусто — BH-C1, BH, SB для швейцарки)
create-tiebreak-rules = Правила доп. показателей (FIDE C.07)
create-text-in-force = Действующая редакция
create-unrated = Игроки без рейтинга в показателях по рейтингу: drop, ignore или рейтинг
create-bye = Пропуск тура при жеребьёвке
create-bye-1 = 1 очко
create-bye-half = ½ очка
create-bye-0 = 0 очков
create-top-seed = Первый номер в 1-м туре играет
create-manual = Составлять пары каждого тура самому (иначе — сразу по окончании тура)
create-self-entry = Игроки могут записываться сами
create-late-entry = Поздняя запись после старта (швейцарка)
create-forfeit-withdraws = Снимать игрока, не начавшего партию
create-button = Создать турнир
time-control-bad = контроль времени «{ $text }»: укажите его в секундах как НАЧАЛЬНОЕ+ДОБАВКА, например 600+5 или 300+0.5
no-scheduler = На этом сервере нет планировщика турниров.
created = Турнир «{ $name }» создан (номер { $id }). Теперь добавьте игроков.

## Консоль: TRF-файл другой программы

import-title = Начать из TRF-файла
import-intro = Швейцарка, начатая в другой программе (Swiss-Manager, Vega, bbpPairings…): игроки, рейтинги и сыгранные туры берутся из файла, который проверяется так же, как эта команда:
import-intro-after = Затем следующий тур составляется здесь так, как его составил бы файл. Игроки ищутся по имени; имя, которого нет ни у одной учётной записи, регистрируется.
import-file = TRF-файл
import-name = Название (пусто — из файла)
import-rounds = Число туров (пусто — из файла)
import-board = Очно
import-online = Онлайн
import-manual = Составлять пары каждого тура самому
import-accept = Оставить туры, составленные иначе, чем составил бы движок (их пары остаются в силе)
import-button = Проверить и начать
import-no-file = Выберите TRF-файл для загрузки.
import-unreadable = Файл не читается: { $reason }. Ничего не импортировано.
import-register-failed = Стартовый номер { $rank } ({ $name }): { $reason }. Ничего не импортировано.
import-refused = Файл не импортирован:
imported = Импортировано: игроков — { $players }, сыграно туров — { $played } из { $rounds }{ $registered ->
    [0] {""}
   *[other] ; зарегистрировано игроков — { $registered }
}.

## Консоль: проведение турнира

error-no-tournament = Такого турнира нет.
run-over-the-board = очно
run-online = онлайн
run-rated = рейтинговый
run-standings-link = Таблица и кросс-таблица
run-export-trf = Экспорт TRF
run-start = Начать и составить пары 1-го тура
run-delete = Удалить этот турнир
run-pair = Составить пары тура { $round }
run-finish = Завершить турнир
run-results = Результаты тура { $round }
run-all-results = У всех досок тура { $round } есть результат.
run-open = Без результата досок: { $open } из { $boards }.
run-board = Доска { $board }
run-corrected = (исправлено)
run-pairing-bye = свободен по жеребьёвке
result-white-wins = Победа белых
result-draw = Ничья
result-black-wins = Победа чёрных
result-white-forfeit = Победа белых по неявке
result-black-forfeit = Победа чёрных по неявке
result-both-forfeit = Поражение обоим по неявке
correct-heading = Исправить результат
correct-note = Исправление меняет доску, её партию, TRF, таблицу и рейтинги. Если следующий тур уже составлен, его пары остаются как есть.
correct-board = Доска
round-board-of = Тур { $round }, доска { $board }
correct-result = Верный результат
correct-why = Причина (сохраняется вместе с исправлением)
correct-button = Исправить результат
run-players = Игроки ({ $count })
run-col-number = №
run-col-name = Имя
run-joined = (с тура { $round })
run-withdraw = Снять
run-withdraw-who = Снять игрока { $name }
bye-heading = Запросить пропуск тура
bye-player = Игрок
bye-round = Тур
bye-kind = Пропуск
bye-kind-half = за пол-очка
bye-kind-zero = за ноль очков
bye-button = Запросить пропуск
apart-heading = Игроки, которые не должны встречаться
apart-pair = { $first } и { $second }
apart-undo = Снова могут встречаться
apart-first = Игрок
apart-second = не должен встречаться с
apart-button = Развести их
add-heading = Добавить игроков
add-find = Найти учётную запись по имени
add-find-button = Найти
add-none = Нет учётных записей с такими словами в имени.
add-entered = в турнире
add-rating = рейтинг
add-rating-auto = авто
add-who = Добавить игрока { $name }
add-button = Добавить
register-heading = Зарегистрировать нового игрока
register-name = Имя (любым письмом)
register-rating = Стартовый рейтинг (пусто — из рейтинг-листа)
register-button = Зарегистрировать и добавить
done-started = Турнир начат, игроков: { $count }; пары 1-го тура составлены.
done-finished = Турнир завершён: итоговая таблица — на его странице.
done-paired = Пары тура { $round } составлены.
done-deleted = Турнир удалён.
done-board-said = Тур { $round }, доска { $board }: { $reason }
done-recorded = Тур { $round }, доска { $board }: записан результат { $result }.
done-choose-board = доска «{ $key }»: выберите доску из списка
done-corrected = Тур { $round }, доска { $board }: результат исправлен с { $was } на { $now }; таблица, TRF и рейтинги пересчитываются.
done-not-corrected = Тур { $round }, доска { $board }: результат уже { $result }, исправлять нечего.
done-removed = Заявка удалена.
done-withdrawn = Игрок снят: без пар начиная с тура { $round }.
done-bye-half = Пропуск тура { $round } за пол-очка записан.
done-bye-zero = Пропуск тура { $round } за ноль очков записан.
done-apart = Со следующего тура они не будут играть друг с другом.
done-already-apart = Они уже разведены.
done-may-meet = Теперь они снова могут играть друг с другом.
done-not-apart = Они и не были разведены.
done-entered = { $name } в турнире (рейтинг { $rating }).
done-registered-not-entered = { $name } зарегистрирован(а), но не добавлен(а): { $reason }
done-registered = { $name } зарегистрирован(а) и добавлен(а) в турнир (рейтинг { $rating }).
details-heading = О турнире
details-place = Место
details-dates = Даты
details-date-range = { $start } – { $end }
details-organiser = Организатор
details-chief-arbiter = Главный судья
details-deputies = Заместители главного судьи
details-time-control = Контроль времени
details-rating = Рейтинг
details-rules = Правила
details-round-dates = Даты туров
details-round-date = тур { $round }: { $date }
details-note = Примечание
details-federation = Федерация (три буквы)
details-start = Первый день
details-end = Последний день
details-one-a-line = по одному в строке
details-round-dates-hint = гггг-мм-дд, по одной в строке, с первого тура
details-button = Сохранить сведения
done-details = Сведения сохранены.
done-details-same = Сведения уже были такими.
