-- Tournaments: the seat balance achieved (T4.3). Per tournament, over its
-- players: the fewest and most games each sat first (seat 0, R2.1), and how
-- late they sat on average (0 = always first, 1 = always last).
WITH played AS (
  SELECT
    g.tournament,
    s.player_id,
    COUNT(*) AS games,
    SUM(CASE WHEN s.seat = 0 THEN 1 ELSE 0 END) AS first_seats,
    CAST(SUM(s.seat) AS DOUBLE) / SUM(s.players - 1) AS lateness
  FROM seat s
  JOIN game g ON g.game_id = s.game_id
  WHERE g.tournament IS NOT NULL
  GROUP BY g.tournament, s.player_id
), games AS (
  SELECT tournament, COUNT(*) AS games, MAX(tournament_round) AS rounds
  FROM game
  WHERE tournament IS NOT NULL
  GROUP BY tournament
)
SELECT
  p.tournament,
  MAX(t.rounds) AS rounds,
  MAX(t.games) AS games,
  COUNT(*) AS players,
  MIN(p.first_seats) AS first_seats_min,
  MAX(p.first_seats) AS first_seats_max,
  MIN(p.lateness) AS lateness_min,
  MAX(p.lateness) AS lateness_max
FROM played p
JOIN games t ON t.tournament = p.tournament
GROUP BY p.tournament
ORDER BY p.tournament
