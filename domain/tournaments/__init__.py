"""Swiss tournaments of the game: TOURNAMENT.md's rules T1–T10, as pure functions and the
Tournament aggregate."""
