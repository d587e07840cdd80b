-- The service's own tables live in schema "cds", apart from db-sync's "public", so an operator may keep them in
-- any database (even next to db-sync) without name clashes. Later migrations add API keys and usage.
create schema if not exists cds;
