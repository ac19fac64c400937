-- Seat advantage (R2.1): each seat's share of the wins, for each player
-- count, with its 95 % Wilson interval and the fair share (1 / players).
-- A win shared by k seats counts 1/k to each (win_units are sixtieths).
-- The interval holds the share and lies within [0, 1]: its bounds are held
-- there, so no rounding puts them outside (no win: exactly 0; every win: 1).
WITH counted AS (
  SELECT players, seat, COUNT(*) AS games, CAST(SUM(win_units) AS DOUBLE) / 60 AS wins
  FROM seat
  GROUP BY players, seat
), shares AS (
  SELECT players, seat, games, wins, wins / games AS share, 1.959963984540054E0 AS z
  FROM counted
)
SELECT
  players,
  seat,
  games,
  wins,
  share,
  GREATEST(0.0E0, LEAST(share,
    (share + z * z / (2 * games) - z * SQRT(share * (1 - share) / games + z * z / (4 * games * games)))
      / (1 + z * z / games))) AS wilson_low,
  LEAST(1.0E0, GREATEST(share,
    (share + z * z / (2 * games) + z * SQRT(share * (1 - share) / games + z * z / (4 * games * games)))
      / (1 + z * z / games))) AS wilson_high,
  1.0E0 / players AS fair_share,
  share - 1.0E0 / players AS edge
FROM shares
ORDER BY players, seat
