"""The account pages' words (api/web/account_pages.py, its account_*.html
templates, the header's sign-in links): key: (English, Russian)."""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    # the header
    "acct_nav": ("Account", "Учётная запись"),
    "acct_sign_in": ("Sign in", "Войти"),
    "acct_sign_up": ("Sign up", "Зарегистрироваться"),
    "acct_sign_out": ("Sign out", "Выйти"),
    # sign-up
    "acct_signup_title": ("Create an account", "Создать учётную запись"),
    "acct_signup_intro": (
        "An account keeps your games, seats and tournaments under one name, on every "
        "device you sign in on. No e-mail and no password: a passkey (your device's "
        "fingerprint, face or PIN) signs you in, and an account key stands in where "
        "there is no passkey.",
        "Учётная запись хранит ваши партии, места и турниры под одним именем на всех "
        "устройствах, где вы вошли. Ни почты, ни пароля: входите ключом доступа "
        "(отпечаток пальца, лицо или PIN-код устройства), а где его нет — ключом "
        "учётной записи.",
    ),
    "acct_name": ("Name", "Имя"),
    "acct_name_hint": (
        "1 to 40 characters; shown to other players. No two accounts share a name, "
        "whatever its case or width (T2.1).",
        "От 1 до 40 символов; его видят другие игроки. У двух учётных записей не может "
        "быть одного имени, даже в другом регистре или ширине символов (T2.1).",
    ),
    "acct_signup_passkey": ("Create account with a passkey", "Создать с ключом доступа"),
    "acct_signup_key": ("Create account without a passkey", "Создать без ключа доступа"),
    "acct_signup_key_hint": (
        "Without a passkey (a device that has none), your account key, shown once next, "
        "is how you sign in: keep it safe. You can add a passkey later on your account page.",
        "Без ключа доступа (на устройстве, где его нет) входить придётся ключом учётной "
        "записи: он будет показан один раз на следующей странице, сохраните его. Ключ "
        "доступа можно добавить позже на странице учётной записи.",
    ),
    "acct_have_account": ("Have an account?", "Уже есть учётная запись?"),
    "acct_name_taken": (
        "The name “{name}” is taken by another account (names are compared "
        "ignoring case and width, T2.1): choose another.",
        "Имя «{name}» уже занято другой учётной записью (имена сравниваются без учёта "
        "регистра и ширины символов, T2.1): выберите другое.",
    ),
    # sign-in
    "acct_signin_title": ("Sign in", "Вход"),
    "acct_already_signed_in": (
        "This browser is signed in as {name}; signing in again replaces that session.",
        "Этот браузер уже вошёл как {name}; новый вход заменит этот сеанс.",
    ),
    "acct_with_passkey": ("With a passkey", "Ключом доступа"),
    "acct_signin_passkey_hint": (
        "Your device offers the passkeys it holds for this site: no name to type.",
        "Устройство само предложит ключи доступа для этого сайта: имя вводить не нужно.",
    ),
    "acct_signin_passkey": ("Sign in with a passkey", "Войти с ключом доступа"),
    "acct_no_webauthn": (
        "Passkeys need a browser with JavaScript and WebAuthn; use your account key instead.",
        "Для ключей доступа нужен браузер с JavaScript и WebAuthn; войдите ключом учётной записи.",
    ),
    "acct_passkeys_need_domain": (
        "Passkeys work at a site's name, not at an IP address: here, use your account key.",
        "Ключи доступа работают по имени сайта, а не по IP-адресу: здесь входите ключом "
        "учётной записи.",
    ),
    "acct_passkeys_localhost": (
        "Passkeys on this machine:",
        "Ключи доступа на этом компьютере:",
    ),
    "acct_with_key": ("With your account key", "Ключом учётной записи"),
    "acct_key": ("Account key", "Ключ учётной записи"),
    "acct_signin_key": ("Sign in with your account key", "Войти по ключу учётной записи"),
    "acct_signin_key_hint": (
        "The key starting “opus_” you were shown when you created the account or last "
        "rotated its key.",
        "Ключ, начинающийся с «opus_», который вам показали при создании учётной записи "
        "или последней замене ключа.",
    ),
    "acct_no_account": ("No account yet?", "Ещё нет учётной записи?"),
    "acct_not_a_key": (
        "This is not an account key: it starts “opus_” and is 81 characters long.",
        "Это не ключ учётной записи: он начинается с «opus_» и состоит из 81 символа.",
    ),
    "acct_key_refused": (
        "This account key does not sign in: it was rotated, or mistyped.",
        "Этот ключ учётной записи не подходит: его заменили или ввели с ошибкой.",
    ),
    "acct_passkey_unknown": (
        "This passkey is not one of an account here (removed, or made for another site).",
        "Этот ключ доступа не принадлежит ни одной учётной записи здесь (удалён или создан "
        "для другого сайта).",
    ),
    "acct_passkey_bad": (
        "The passkey's answer does not hold ({why}): try again.",
        "Ответ ключа доступа не прошёл проверку ({why}): попробуйте ещё раз.",
    ),
    "acct_challenge_gone": (
        "This passkey request has expired or was used already: start again.",
        "Этот запрос ключа доступа истёк или уже использован: начните заново.",
    ),
    "acct_try_again": (
        "Passkeys cannot be checked right now: try again shortly.",
        "Ключи доступа сейчас не проверить: попробуйте чуть позже.",
    ),
    "acct_limited": (
        "Too many sign-in attempts from your address: retry in {seconds} s.",
        "Слишком много попыток входа с вашего адреса: повторите через {seconds} с.",
    ),
    "acct_signed_out": (
        "This browser is not signed in (the session was signed out or has expired).",
        "Этот браузер не вошёл в учётную запись (сеанс завершён или истёк).",
    ),
    # the passkey script's words
    "acct_js_working": ("Waiting for your passkey…", "Ждём ключ доступа…"),
    "acct_js_cancelled": (
        "The passkey was not used (cancelled or timed out).",
        "Ключ доступа не использован (отменено или истекло время).",
    ),
    "acct_js_failed": ("That did not work: {message}", "Не получилось: {message}"),
    "acct_js_done": ("Done.", "Готово."),
    "acct_js_server": (
        "the service could not do it now (status {status}): try again shortly",
        "сервис сейчас не смог это сделать (код {status}): попробуйте чуть позже",
    ),
    "acct_js_exists": (
        "this device already holds a passkey of this account",
        "на этом устройстве уже есть ключ доступа этой учётной записи",
    ),
    "acct_js_insecure": (
        "passkeys cannot be used at this address",
        "по этому адресу ключи доступа не работают",
    ),
    "acct_js_unsupported": (
        "this device has no passkey this site can use",
        "на этом устройстве нет ключа доступа, подходящего этому сайту",
    ),
    "acct_js_device": (
        "your device could not make or use the passkey",
        "устройство не смогло создать или использовать ключ доступа",
    ),
    # the key, shown once
    "acct_key_title": ("Your account key", "Ваш ключ учётной записи"),
    "acct_key_once": (
        "This is the only time it is shown: copy it now and keep it somewhere safe.",
        "Он показан только сейчас: скопируйте его и сохраните в надёжном месте.",
    ),
    "acct_key_copy": ("Copy", "Скопировать"),
    "acct_key_copied": ("Copied.", "Скопировано."),
    "acct_key_for": ("What it is for:", "Для чего он:"),
    "acct_key_for_signin": (
        "signing in on a device without a passkey (Sign in → With your account key);",
        "вход на устройстве без ключа доступа (Войти → Ключом учётной записи);",
    ),
    "acct_key_for_api": (
        "API clients and scripts: send it as a bearer token (Authorization: Bearer opus_…), "
        "and they act as your account.",
        "клиенты API и скрипты: передавайте его как токен (Authorization: Bearer opus_…), "
        "и они действуют от имени вашей учётной записи.",
    ),
    "acct_key_keep": (
        "Anyone holding it acts as you. Only its hash is stored, so it cannot be shown "
        "again: if it is lost or leaked, rotate it on your account page (the old one "
        "stops working at once).",
        "Любой, у кого он есть, действует от вашего имени. Хранится только его хеш, "
        "поэтому показать его снова нельзя: если он потерян или раскрыт, замените его на "
        "странице учётной записи (старый сразу перестанет действовать).",
    ),
    "acct_key_gone": (
        "There is no key to show: an account key is shown once, on the page after it is "
        "made. If you did not keep it, rotate the key on your account page to get a new one.",
        "Показывать нечего: ключ учётной записи показывается один раз, сразу после "
        "создания. Если вы его не сохранили, замените ключ на странице учётной записи.",
    ),
    "acct_to_account": ("Your account", "Ваша учётная запись"),
    # the account page
    "acct_title": ("Account", "Учётная запись"),
    "acct_new_name": ("New name", "Новое имя"),
    "acct_rename": ("Rename", "Переименовать"),
    "acct_public_id": ("Public id", "Публичный идентификатор"),
    "acct_passkeys": ("Passkeys", "Ключи доступа"),
    "acct_added": ("added", "добавлен"),
    "acct_remove": ("Remove", "Удалить"),
    "acct_remove_passkey_named": ("Remove {label}", "Удалить {label}"),
    "acct_no_passkeys": (
        "No passkey: this account signs in with its account key.",
        "Ключей доступа нет: вход по ключу учётной записи.",
    ),
    "acct_add_passkey": ("Add a passkey", "Добавить ключ доступа"),
    "acct_key_about": (
        "Your account key signs in where there is no passkey and is your API clients' "
        "token. Rotating makes a new one, shown once; the old one stops working at once.",
        "Ключ учётной записи служит для входа там, где нет ключа доступа, и как токен "
        "для клиентов API. Замена создаёт новый ключ (он будет показан один раз); "
        "старый сразу перестаёт действовать.",
    ),
    "acct_rotate_sure": (
        "I understand the current key stops working",
        "Понимаю, что текущий ключ перестанет действовать",
    ),
    "acct_rotate_unsure": (
        "Tick the box to confirm: the current key stops working.",
        "Отметьте флажок: текущий ключ перестанет действовать.",
    ),
    "acct_rotate": ("Rotate the key", "Заменить ключ"),
    "acct_sessions": ("Signed-in browsers", "Браузеры, где выполнен вход"),
    "acct_sessions_hint": (
        "Each stays signed in for 14 days unless signed out here. Sign out any you do not "
        "recognise.",
        "Каждый остаётся в учётной записи 14 дней, если не выйти здесь. Завершите сеансы, "
        "которые вы не узнаёте.",
    ),
    "acct_this_browser": ("this browser", "этот браузер"),
    "acct_via_passkey": ("with a passkey", "ключом доступа"),
    "acct_via_key": ("with the account key", "ключом учётной записи"),
    "acct_opened": ("since", "с"),
    "acct_sign_out_session": ("Sign out {label}", "Выйти {label}"),
    "acct_no_such_session": (
        "That browser is signed out already (or was never this account's).",
        "Этот браузер уже вышел из учётной записи (или никогда в ней не был).",
    ),
    "acct_no_such_passkey": (
        "That passkey is not this account's any more (removed already?).",
        "Этот ключ доступа больше не принадлежит учётной записи (уже удалён?).",
    ),
    # why a passkey's answer was refused (never the library's own text)
    "acct_why_challenge": (
        "it answers a request that has expired or was used",
        "он отвечает на истёкший или уже использованный запрос",
    ),
    "acct_why_origin": (
        "it was made on another site's page",
        "он создан на странице другого сайта",
    ),
    "acct_why_site": (
        "it belongs to another site",
        "он принадлежит другому сайту",
    ),
    "acct_why_counter": (
        "its use counter went backwards, as a copied passkey's does",
        "его счётчик использований уменьшился, как у скопированного ключа",
    ),
    "acct_why_signature": (
        "its signature is not this passkey's",
        "его подпись не от этого ключа доступа",
    ),
    "acct_why_user": (
        "your device did not confirm it was you",
        "устройство не подтвердило, что это вы",
    ),
    "acct_why_kind": (
        "this kind of passkey is not supported here",
        "такой ключ доступа здесь не поддерживается",
    ),
    "acct_why_unreadable": (
        "your browser's answer could not be read",
        "ответ браузера не удалось прочитать",
    ),
    # the adoption page: seats, games and registrations taken signed out
    "adopt_title": (
        "Add this browser's games to your account?",
        "Добавить партии этого браузера в учётную запись?",
    ),
    "adopt_signed_in_as": ("You are signed in as", "Вы вошли как"),
    "adopt_intro": (
        "This browser took these seats, games and registrations while signed out. Tick "
        "the ones that are yours to play them from this account on every device; the "
        "others stay this browser's, playable signed out.",
        "Этот браузер занял эти места, партии и регистрации без входа. Отметьте свои, "
        "чтобы играть ими из этой учётной записи на любом устройстве; остальные останутся "
        "за этим браузером, и ими можно играть без входа.",
    ),
    "adopt_not_yours": (
        "If this is not your account, do not add anything: sign out instead.",
        "Если это не ваша учётная запись, ничего не добавляйте: выйдите из неё.",
    ),
    "adopt_legend": ("Add to {name}", "Добавить в {name}"),
    "adopt_seat": (
        "Your seat “{name}” in the game of {players}",
        "Ваше место «{name}» в партии игроков {players}",
    ),
    "adopt_organiser_game": (
        "The game you organise, of {players}",
        "Партия, которую вы организовали, игроки: {players}",
    ),
    "adopt_organiser_tournament": (
        "The tournament you organise, “{name}”",
        "Турнир, который вы организовали, «{name}»",
    ),
    "adopt_registration": (
        "Your registration as “{name}” in the tournament “{tournament}”",
        "Ваша регистрация как «{name}» в турнире «{tournament}»",
    ),
    "adopt_see": ("see it", "посмотреть"),
    "adopt_submit": ("Add the ticked ones to {name}", "Добавить отмеченные в {name}"),
    "adopt_skip": ("Not now", "Не сейчас"),
    "adopt_none": (
        "This browser holds nothing taken signed out that your account does not hold already.",
        "У этого браузера нет ничего, занятого без входа, чего нет в вашей учётной записи.",
    ),
    "adopt_offer": (
        "This browser holds seats, games or registrations taken signed out:",
        "У этого браузера есть места, партии или регистрации, занятые без входа:",
    ),
    "adopt_review": ("review them", "просмотреть"),
}
