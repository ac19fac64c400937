-- How games end (R7.1 deck out and passes, R7.2 a Stone placed, "stalled"
-- R7.4, "withdrawn" R3.5, "called" T8.1), by player count and variant.
WITH ends AS (
  SELECT players, draw, guild, end_reason, COUNT(*) AS games, SUM(turns) AS turns
  FROM game
  GROUP BY players, draw, guild, end_reason
)
SELECT
  players,
  draw,
  guild,
  end_reason,
  games,
  CAST(games AS DOUBLE) / SUM(games) OVER (PARTITION BY players, draw, guild) AS share,
  CAST(turns AS DOUBLE) / games AS mean_turns
FROM ends
ORDER BY players, draw, guild, end_reason
