-- A heavy address's summary is computed once for the whole deployment: the instance holding the row's lease
-- (lease_until in the future) computes it for the chain tip it saw and stores it here; the others read it
-- (layers/address_summaries.ts).
alter table cds.heavy_address
  add column summary jsonb,
  -- the chain tip (block hash) the summary is current for
  add column summary_tip text,
  -- when the summary was last computed from the address's whole history (it is updated from new blocks after)
  add column full_at timestamptz,
  add column lease_until timestamptz;
