-- Game length: turns and events per game, by player count.
SELECT
  players,
  COUNT(*) AS games,
  CAST(SUM(turns) AS DOUBLE) / COUNT(*) AS mean_turns,
  MIN(turns) AS min_turns,
  MAX(turns) AS max_turns,
  CAST(SUM(events) AS DOUBLE) / COUNT(*) AS mean_events,
  MIN(events) AS min_events,
  MAX(events) AS max_events,
  CAST(SUM(turns) AS DOUBLE) / SUM(players) AS mean_turns_per_seat
FROM game
GROUP BY players
ORDER BY players
