-- Time per move: how long a turn took (from the command that gave it, or the start, to its end), in seconds, by seat and by phase of the game (its turns in thirds: 1 the first, 3 the last).
SELECT
  t.player AS seat,
  CAST(FLOOR(3.0 * (t.turn - 1) / g.turns) AS INTEGER) + 1 AS phase,
  COUNT(*) AS turns,
  CAST(SUM(t.took_us) AS DOUBLE) / COUNT(*) / 1000000.0 AS mean_seconds,
  CAST(MAX(t.took_us) AS DOUBLE) / 1000000.0 AS max_seconds
FROM turn t
JOIN game g ON g.game_id = t.game_id
GROUP BY t.player, CAST(FLOOR(3.0 * (t.turn - 1) / g.turns) AS INTEGER) + 1
ORDER BY seat, phase
