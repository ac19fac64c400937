"""Words of the table page's receipts check (api/web/static/receipts.js,
shown through api/web/templates/web/_receipts.html): what this browser
checked, whom it trusts, and each alarm, in words a player understands.
``{…}`` are filled in by the script."""

WORDS: dict[str, tuple[str, str]] = {
    "rc_title": (
        "Receipts: is this the game's true history?",
        "Квитанции: подлинна ли история партии?",
    ),
    "rc_checking": ("Checking this game's log…", "Проверяем журнал партии…"),
    "rc_point": ("{size} events (root {root}…)", "событий: {size} (корень {root}…)"),
    "rc_ok_first": (
        "Log checked: {size} events, consistent with what this browser saw.",
        "Журнал проверен: событий {size}, сходится с тем, что видел этот браузер.",
    ),
    "rc_ok_before": (
        "Log checked: {size} events, consistent with what this browser saw before ({kept}).",
        "Журнал проверен: событий {size}, сходится с тем, что этот браузер видел раньше ({kept}).",
    ),
    "rc_corrupt": (
        "The checkpoint this browser kept for this game could not be read: this browser's "
        "storage, not the service. It is set aside, and the service's new one is kept.",
        "Сохранённую этим браузером контрольную точку партии не удалось прочесть: это сбой "
        "хранилища браузера, а не сервиса. Она отложена, сохранена новая точка сервиса.",
    ),
    "rc_unsigned": (
        "This game's checkpoint is not signed by the service's key this browser trusts. "
        "It is kept in this browser as evidence.",
        "Контрольная точка партии не подписана ключом сервиса, которому доверяет этот браузер. "
        "Она сохранена в браузере как улика.",
    ),
    "rc_fork": (
        "The service's log of this game contradicts what this browser saw before: it signed "
        "{kept} then {now}, and no consistency proof joins the two. Both signed checkpoints "
        "are kept in this browser as evidence.",
        "Журнал партии противоречит тому, что этот браузер видел раньше: сервис подписал "
        "{kept}, а затем {now}, и никакое доказательство согласованности их не связывает. "
        "Обе подписанные точки сохранены в браузере как улики.",
    ),
    "rc_rollback": (
        "The service now shows this game's log as {now}, where it showed this browser {kept} "
        "before: a log only grows, so moves were taken back. Both signed checkpoints are kept "
        "in this browser as evidence.",
        "Сервис теперь показывает журнал партии как {now}, а раньше показывал этому браузеру "
        "{kept}: журнал только растёт, значит, ходы убраны. Обе подписанные точки сохранены "
        "в браузере как улики.",
    ),
    "rc_vanished": (
        "The service now says this game does not exist, but it signed {kept} of it for this "
        "browser before. That signed checkpoint is kept in this browser as evidence.",
        "Сервис теперь говорит, что такой партии нет, хотя раньше подписал этому браузеру "
        "{kept}. Эта подписанная точка сохранена в браузере как улика.",
    ),
    "rc_key_changed": (
        "The service now signs with another key ({new}) than the one this browser trusts "
        "({old}), and the old key did not sign the change. Do not trust this service's "
        "history: what each key signed is kept in this browser as evidence.",
        "Сервис теперь подписывает другим ключом ({new}), а не тем, которому доверяет этот "
        "браузер ({old}), и старый ключ эту смену не подписал. Не доверяйте истории этого "
        "сервиса: подписанное каждым ключом сохранено в браузере как улики.",
    ),
    "rc_key_rotated": (
        "The service changed its key to {new} on {time}, and its old key {old} signed the "
        "change: this browser trusts the new key now.",
        "Сервис сменил ключ на {new} ({time}), и старый ключ {old} эту смену подписал: "
        "теперь этот браузер доверяет новому ключу.",
    ),
    "rc_head_missing": (
        "The service's public log, the one witnesses check, does not hold this game's "
        "{now}, which the service signed. The signed statements are kept in this browser "
        "as evidence.",
        "Общий журнал сервиса, который проверяют свидетели, не содержит {now} этой партии, "
        "хотя сервис это подписал. Подписанное сохранено в браузере как улики.",
    ),
    "rc_global_fork": (
        "The service's public log contradicts what this browser saw of it before: {kept} "
        "then {now}, and no consistency proof joins the two. Both signed checkpoints are kept "
        "in this browser as evidence.",
        "Общий журнал сервиса противоречит тому, что этот браузер видел раньше: {kept}, а "
        "затем {now}, и никакое доказательство их не связывает. Обе подписанные точки "
        "сохранены в браузере как улики.",
    ),
    "rc_global_rollback": (
        "The service's public log now holds {now}, where it showed this browser {kept} "
        "before: a log only grows. Both signed checkpoints are kept in this browser as "
        "evidence.",
        "Общий журнал сервиса теперь содержит {now}, а раньше этот браузер видел {kept}: "
        "журнал только растёт. Обе подписанные точки сохранены в браузере как улики.",
    ),
    "rc_witness_fork": (
        "The witness {witness} was shown another history of the service's log than this "
        "browser: it vouches for {theirs}, this page was shown {ours}, and no consistency "
        "proof joins the two. The service shows different players different histories. "
        "Both signed checkpoints are kept in this browser as evidence.",
        "Свидетелю {witness} показали другую историю общего журнала, чем этому браузеру: он "
        "ручается за {theirs}, этой странице показали {ours}, и никакое доказательство их "
        "не связывает. Сервис показывает разным игрокам разные истории. Обе подписанные "
        "точки сохранены в браузере как улики.",
    ),
    "rc_witness_refused": (
        "The witness {witness} refused the service's log as this page was shown it ({ours}): "
        "it contradicts what the witness vouched for. The service shows different players "
        "different histories. The signed checkpoint and the witness's answer are kept in "
        "this browser as evidence.",
        "Свидетель {witness} отверг общий журнал в том виде, в каком его показали этой "
        "странице ({ours}): он противоречит тому, за что свидетель ручался. Сервис "
        "показывает разным игрокам разные истории. Подписанная точка и ответ свидетеля "
        "сохранены в браузере как улики.",
    ),
    "rc_witnessed": (
        "Checked against {n} of {m} witnesses, as of {time}.",
        "Проверено свидетелями: {n} из {m}, по состоянию на {time}.",
    ),
    "rc_unwitnessed": (
        "Warning: only {n} of the {quorum} witnesses this browser asks for (of {m} it trusts) "
        "vouch for the service's public log. Until they do, only the service says this "
        "history is the one every player sees.",
        "Внимание: за общий журнал сервиса ручаются лишь {n} из {quorum} свидетелей, которых "
        "требует этот браузер (всего доверенных {m}). Пока они не поручились, только сам "
        "сервис утверждает, что все игроки видят эту же историю.",
    ),
    "rc_no_witnesses": (
        "Warning: this service names no witnesses, so only this browser's memory checks the "
        "log; another player may be shown another history.",
        "Внимание: сервис не называет свидетелей, поэтому журнал проверяет только память "
        "этого браузера; другому игроку может быть показана другая история.",
    ),
    "rc_stale": (
        "Warning: the witnesses last vouched for the service's log at {time}, longer ago than "
        "the {bound} minutes this browser allows: the service may be showing an old state.",
        "Внимание: свидетели последний раз ручались за журнал сервиса {time}, раньше, чем "
        "допускает этот браузер ({bound} мин.): сервис может показывать устаревшее состояние.",
    ),
    "rc_waiting": (
        "Waiting for the service's public log to take this game's latest move…",
        "Ждём, пока последний ход партии попадёт в общий журнал сервиса…",
    ),
    "rc_not_public": (
        "Warning: this game's latest move is not in the service's public log yet, so no "
        "witness can vouch for it.",
        "Внимание: последнего хода партии ещё нет в общем журнале сервиса, поэтому ни один "
        "свидетель не может за него поручиться.",
    ),
    "rc_unanswered": (
        "Warning: the service could not answer this browser's check just now; it is made "
        "again with the next move, or when the page is reloaded.",
        "Внимание: сервис не смог сейчас ответить на проверку браузера; она повторится со "
        "следующим ходом или при перезагрузке страницы.",
    ),
    "rc_witness_away": (
        "Warning: the witness {witness} could not be asked, so this browser could not "
        "compare what it was shown with what the witness saw.",
        "Внимание: не удалось обратиться к свидетелю {witness}, поэтому браузер не смог "
        "сравнить показанное ему с тем, что видел свидетель.",
    ),
    "rc_evidence_kept": (
        "This browser keeps evidence from {time}: {words}",
        "Этот браузер хранит улики от {time}: {words}",
    ),
    "rc_storage_full": (
        "This browser's storage is full: the evidence could not be kept. Save this page.",
        "Хранилище браузера заполнено: улики не удалось сохранить. Сохраните эту страницу.",
    ),
    "rc_trust_key": ("Service key", "Ключ сервиса"),
    "rc_trust_witnesses": (
        "Witnesses ({quorum} of {m} must vouch)",
        "Свидетели (должны поручиться {quorum} из {m})",
    ),
    "rc_trust_none": ("none named by the service", "сервис их не называет"),
    "rc_trust_pinned": (
        "Trusted by this browser since {time}, as the service first named them. Compare the "
        "key ids with the ones the service's operator publishes.",
        "Этот браузер доверяет им с {time}, как сервис назвал их впервые. Сравните "
        "идентификаторы ключей с теми, что публикует оператор сервиса.",
    ),
    "rc_trust_fresh": (
        "A witness's word older than {bound} minutes is called stale.",
        "Поручительство свидетеля старше {bound} мин. считается устаревшим.",
    ),
    "rc_trust_summary": ("Whom this browser trusts", "Кому доверяет этот браузер"),
}
