-- Where points come from (R8.1): each rule label's share of all points, by
-- player count and variant (draw rule, Guild on or off).
WITH totals AS (
  SELECT g.players, g.draw, g.guild, a.rule, SUM(a.points) AS points, COUNT(*) AS awards
  FROM award a
  JOIN game g ON g.game_id = a.game_id
  GROUP BY g.players, g.draw, g.guild, a.rule
)
SELECT
  players,
  draw,
  guild,
  rule,
  points,
  awards,
  CAST(points AS DOUBLE) / NULLIF(SUM(points) OVER (PARTITION BY players, draw, guild), 0) AS share
FROM totals
ORDER BY players, draw, guild, rule
