"""Errors the domain raises. A rule error names its rule id (R… or S…)."""

from __future__ import annotations


class OpusError(Exception):
    """Base of every error the domain raises on purpose."""


class GameNotFoundError(OpusError):
    pass


class VersionClashError(OpusError):
    """The game is not at the version the command expected."""


class IdempotencyConflictError(OpusError):
    """A command id (an idempotency key) reused for another request."""


class NotAuthorisedError(OpusError):
    """The caller's token does not allow this in this game."""


class NotSeatedError(NotAuthorisedError):
    def __init__(self) -> None:
        super().__init__("this token holds no seat in this game")


class NotOrganiserError(NotAuthorisedError):
    def __init__(self) -> None:
        super().__init__("only the game's organiser may do this")


class RuleError(OpusError):
    """A move the rules refuse. ``rule`` is the id in RULES.md."""

    rule = "R"

    def __init__(self, message: str, rule: str | None = None) -> None:
        if rule is not None:
            self.rule = rule
        super().__init__(f"{self.rule}: {message}")
        self.detail = message


class SetupError(RuleError):
    rule = "R2.1"


class OutOfTurnError(RuleError):
    rule = "R3.4"


class PassNotAllowedError(RuleError):
    rule = "R3.3"


class ClockError(RuleError):
    """A clock R11.1 does not allow (a rule set's, or a timed game's request)."""

    rule = "R11.1"


class WithdrawalError(RuleError):
    rule = "R3.5"


class DiscardError(RuleError):
    rule = "R4.1"


class AssemblyError(RuleError):
    rule = "R4.2"


class PlacementError(RuleError):
    rule = "R4.5"


class ColumnBuiltError(RuleError):
    rule = "R4.8"


class StageIsLastError(RuleError):
    rule = "R5.2"


class SpellError(RuleError):
    rule = "R6"


class GameOverError(RuleError):
    rule = "R7.1"


class GuildOffError(RuleError):
    rule = "R1.4"


# ---- tournaments (TOURNAMENT.md: T…) ----------------------------------------


class TournamentNotFoundError(OpusError):
    pass


class NotTournamentOrganiserError(NotAuthorisedError):
    def __init__(self) -> None:
        super().__init__("only the tournament's organiser may do this")


class TournamentRuleError(RuleError):
    """A tournament command the rules refuse; ``rule`` is its T… id."""

    rule = "T"


class CreationError(TournamentRuleError):
    rule = "T1.1"


class RegistrationError(TournamentRuleError):
    rule = "T2.1"


class DropError(TournamentRuleError):
    rule = "T2.2"


class LateRegistrationError(TournamentRuleError):
    rule = "T2.3"


class TooFewPlayersError(TournamentRuleError):
    rule = "T2.4"


class PairingError(TournamentRuleError):
    rule = "T9.1"  # the next round is paired only after the close


class CorrectionError(TournamentRuleError):
    rule = "T7.1"


class PenaltyError(TournamentRuleError):
    rule = "T7.2"


class CallError(TournamentRuleError):
    rule = "T8.1"


class FinishError(TournamentRuleError):
    rule = "T9.3"


class AccountNotFoundError(OpusError):
    pass


class AdmissionNotSetError(OpusError):
    """A lobby game with no admission recorded: anyone may join it."""


class NameTakenError(OpusError):
    """An account's name shares T2.1's key with another account's."""


class AccountError(OpusError):
    """An account command that cannot be made as asked (in words)."""


class NotInvitedError(NotAuthorisedError):
    def __init__(self) -> None:
        super().__init__("this game is by invitation: join it with its invitation link")


class SignInError(NotAuthorisedError):
    """A sign-in or session that does not hold (expired, unknown, forged)."""
