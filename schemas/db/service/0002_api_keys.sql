-- API keys (spec: Authentication). Only a SHA-256 of each key is stored, with a short hint for people; the key
-- itself is shown once, when created or rotated. Keys have 190 bits of entropy, so a fast hash is enough.
create table cds.account (
  id bigserial primary key,
  name text not null unique,
  created_at timestamptz not null default now()
);

create table cds.api_key (
  id bigserial primary key,
  account_id bigint not null references cds.account (id),
  name text not null,
  tier text not null check (tier in ('FREE', 'PAID')),
  status text not null default 'active' check (status in ('active', 'inactive', 'revoked')),
  secret_sha256 bytea not null unique,
  hint text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz,
  updated_at timestamptz not null default now()
);

-- Bumped by every change to api_key, so running services notice a revocation within their poll interval.
create table cds.key_generation (
  id boolean primary key default true check (id),
  value bigint not null
);
insert into cds.key_generation (value) values (0);

create function cds.bump_key_generation() returns trigger language plpgsql as $$
begin
  update cds.key_generation set value = value + 1;
  return null;
end $$;

create trigger api_key_changed after insert or update or delete on cds.api_key
  for each statement execute function cds.bump_key_generation();

-- Usage, flushed from memory in batches: requests per key, UTC day and endpoint family; and submissions.
create table cds.usage_daily (
  key_id bigint not null references cds.api_key (id),
  day date not null,
  family text not null,
  requests bigint not null,
  primary key (key_id, day, family)
);

create table cds.submission (
  key_id bigint not null references cds.api_key (id),
  at timestamptz not null
);
create index submission_key_at on cds.submission (key_id, at);

-- Identifies this service database among others sharing one Redis: rate-limit counters are namespaced by it, so
-- key ids (which restart in every database) never collide, while instances on the same database share budgets.
create table cds.installation (
  id boolean primary key default true check (id),
  uuid uuid not null default gen_random_uuid()
);
insert into cds.installation default values;
