-- Addresses whose full summary (balance, UTxO and token counts) is costly to compute (an exchange's, with 100k+
-- outputs). The service keeps their summaries current in the background and computes them at start-up, so no
-- request waits for a full read of their history after the first one ever (layers/address_summaries.ts).
create table cds.heavy_address (
  network text not null check (network in ('mainnet', 'preprod')),
  address text not null,
  -- the 28-byte payment credential (hex) of a Shelley payment address; null for Byron and stake addresses
  payment_cred text,
  full_millis integer not null,
  first_seen_at timestamptz not null default now(),
  primary key (network, address)
);
