-- Accounts (issue 16): people sign up with an email address and a password; the operator's own accounts (made
-- by `npm run keys -- create --account NAME`) keep a name and no email. Sign-ups are FREE; accounts that existed
-- before were the operator's and may hold PAID keys, so they become PAID (the operator can change any plan).
alter table cds.account
  add column email text unique,
  add column password_hash text,
  add column plan text not null default 'PAID' check (plan in ('FREE', 'PAID')),
  -- prepaid requests left; null = unlimited
  add column credits bigint check (credits >= 0),
  add column disabled_at timestamptz,
  add column email_confirmed_at timestamptz,
  add column deleted_at timestamptz;

-- Sessions of the dashboard: only a SHA-256 of the session secret (256 random bits) is stored.
create table cds.session (
  id bigserial primary key,
  secret_sha256 bytea not null unique,
  account_id bigint not null references cds.account (id),
  csrf_token text not null,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index session_account on cds.session (account_id);

-- Links mailed (or printed by the operator's CLI): email confirmation and password reset; SHA-256 only, used once.
create table cds.account_token (
  id bigserial primary key,
  secret_sha256 bytea not null unique,
  account_id bigint not null references cds.account (id),
  kind text not null check (kind in ('confirm', 'reset')),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);
create index account_token_account on cds.account_token (account_id);

-- What a key may be used for; null = everything (keys made before permissions existed).
alter table cds.api_key
  add column networks text[],
  add column families text[],
  add column last_used_at timestamptz;

-- Requests refused with 429, per key, day and family, next to the requests served.
alter table cds.usage_daily add column rate_limited bigint not null default 0;

-- The key cache's change counter must not move when only last_used_at does (the usage flush writes it every
-- second): updates bump it per changed row, only when something the request path reads changed.
drop trigger api_key_changed on cds.api_key;
create trigger api_key_written after insert or delete on cds.api_key
  for each statement execute function cds.bump_key_generation();
create trigger api_key_changed after update on cds.api_key
  for each row when (
    (old.account_id, old.name, old.tier, old.status, old.secret_sha256, old.expires_at, old.networks, old.families)
    is distinct from
    (new.account_id, new.name, new.tier, new.status, new.secret_sha256, new.expires_at, new.networks, new.families)
  )
  execute function cds.bump_key_generation();

-- An account's plan and disabled state reach the request path through its keys' cached records. Credits are
-- left out: instances spend them every second (layers/usage.ts); the operator's top-up bumps the counter itself.
create trigger account_changed after update on cds.account
  for each row when (
    (old.plan, old.disabled_at, old.deleted_at) is distinct from (new.plan, new.disabled_at, new.deleted_at)
  )
  execute function cds.bump_key_generation();
