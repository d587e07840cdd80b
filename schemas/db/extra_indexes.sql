-- Indexes the service's queries need that cardano-db-sync (13.6/13.7, core layout) does not create.
-- Operator script for real db-sync databases; safe to run while db-sync writes, and to run again:
--   psql "$MAINNET_DATABASE_URL" -f schemas/db/extra_indexes.sql
-- Every statement stands alone (CONCURRENTLY cannot run inside a transaction block). The `idx_cds_` prefix marks
-- them as ours; the service logs at start which of them a database lacks.

-- address pages and balances: tx_out has no index on the address text since 13.6 (hash: equality only, compact)
CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_cds_tx_out_address ON tx_out USING hash (address);

-- spent-or-not and spent-by for an output: db-sync indexes tx_in.tx_out_id alone
CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_cds_tx_in_tx_out ON tx_in (tx_out_id, tx_out_index);

-- token holders and mint history by asset
CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_cds_ma_tx_out_ident ON ma_tx_out (ident);
CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_cds_ma_tx_mint_ident ON ma_tx_mint (ident);

-- rewards balance: reward_rest (treasury, proposal refunds) has no index at all
CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_cds_reward_rest_addr_id ON reward_rest (addr_id);

-- DRep delegators, a stake account's vote delegation, and certificates of a transaction
CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_cds_delegation_vote_drep_hash_id ON delegation_vote (drep_hash_id);
CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_cds_delegation_vote_addr_id ON delegation_vote (addr_id, tx_id);
CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_cds_delegation_vote_tx_id ON delegation_vote (tx_id);

-- DRep status and a transaction's DRep certificates
CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_cds_drep_registration_drep_hash_id ON drep_registration (drep_hash_id);
CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_cds_drep_registration_tx_id ON drep_registration (tx_id);

-- DRep vote counts, and votes of a transaction
CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_cds_voting_procedure_drep_voter ON voting_procedure (drep_voter);
CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_cds_voting_procedure_tx_id ON voting_procedure (tx_id);

-- a transaction's collateral, reference inputs, collateral return, redeemers and proposals
CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_cds_collateral_tx_in_tx_in_id ON collateral_tx_in (tx_in_id);
CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_cds_reference_tx_in_tx_in_id ON reference_tx_in (tx_in_id);
CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_cds_collateral_tx_out_tx_id ON collateral_tx_out (tx_id);
CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_cds_redeemer_tx_id ON redeemer (tx_id);
CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_cds_gov_action_proposal_tx_id ON gov_action_proposal (tx_id);

-- pool history per epoch when pool_stat is enabled
CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_cds_pool_stat_pool_epoch ON pool_stat (pool_hash_id, epoch_no);
