"""People and the service's bots as accounts (README, "Accounts").

An account is an event-sourced aggregate like a game, but private: its
events stay in the store, never in an export, a stream or a view but the
public id, name and kind. It holds the tokens its person was given (a
seat's, a game's organiser's, a tournament registration's, a tournament
organiser's): the games and tournaments record token hashes as they always
did, so nothing in their chains or in verify changes meaning; the pages and
the API act for an account with the token it holds for the thing acted on.
"""
