-- Sequences (Guild): how far columns get. For each column and stage: how
-- often it was filled, from where, and the share of seat-columns of Guild
-- games that reached it (stage 7 is a completed column, R4.8).
WITH guild_seats AS (
  SELECT COUNT(*) AS seats
  FROM seat s
  JOIN game g ON g.game_id = s.game_id
  WHERE g.guild
)
SELECT
  p.sequence_column,
  p.stage,
  COUNT(*) AS fills,
  SUM(CASE WHEN p.source_zone = 'hand' THEN 1 ELSE 0 END) AS from_hand,
  SUM(CASE WHEN p.source_zone IN ('table', 'sequence') AND p.source_player = p.player THEN 1 ELSE 0 END) AS from_own,
  SUM(CASE WHEN p.source_zone IN ('table', 'sequence') AND p.source_player <> p.player THEN 1 ELSE 0 END) AS from_others,
  SUM(CASE WHEN p.kind = 'transmutation' THEN 1 ELSE 0 END) AS transmutations,
  SUM(p.points) AS points,
  CAST(COUNT(*) AS DOUBLE) / MAX(gs.seats) AS reach_share
FROM placement p
CROSS JOIN guild_seats gs
GROUP BY p.sequence_column, p.stage
ORDER BY p.sequence_column, p.stage
