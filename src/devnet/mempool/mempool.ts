/**
 * The devnet's mempool: accepted transactions in arrival order, waiting for the next block, and what they
 * change (outputs created, inputs spent, stake registrations, withdrawals, pools, governance) as the ledger view
 * sees it, so a transaction may spend a pending one's outputs and a double spend is refused as the node does (3117).
 * Blocks take them oldest first as far as a block holds them (block_capacity.ts); `measure` is what they add up
 * to, which the devnet keeps within the mempool's capacity.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";
import { addMeasures, noMeasure, type TxMeasure, txMeasure, within } from "../blocks/block_capacity.ts";
import type { BlockTx } from "../blocks/block_writer.ts";
import { inputKey, listOf, refKey } from "../decoding/cml_conversions.ts";
import type { PendingState } from "../rules/ledger_view.ts";
import type { DrepState, LiveProposal, MemberState } from "../governance/view.ts";

export class Mempool {
  private txs: Array<BlockTx> = [];
  private view: PendingState = emptyState();
  private total: TxMeasure = noMeasure;

  get size(): number {
    return this.txs.length;
  }

  get pending(): PendingState {
    return this.view;
  }

  /** Bytes, execution units and reference scripts of every pending transaction together. */
  get measure(): TxMeasure {
    return this.total;
  }

  has(id: string): boolean {
    return this.txs.some((t) => t.accepted.id === id);
  }

  ids(): ReadonlyArray<string> {
    return this.txs.map((t) => t.accepted.id);
  }

  add(tx: BlockTx): void {
    this.txs.push(tx);
    apply(this.view as MutableState, tx);
    this.total = addMeasures(this.total, txMeasure(tx.accepted));
  }

  /** The longest prefix that fits in one block (bytes, execution units, reference scripts); the rest waits. */
  next(capacity: TxMeasure): ReadonlyArray<BlockTx> {
    const out: Array<BlockTx> = [];
    let total = noMeasure;
    for (const tx of this.txs) {
      const after = addMeasures(total, txMeasure(tx.accepted));
      if (!within(after, capacity)) break;
      out.push(tx);
      total = after;
    }
    return out;
  }

  /**
   * Drops transactions that made it into a block (the chain database now holds their effects), and those
   * refused at block time together with every pending transaction that spends their outputs.
   */
  remove(included: ReadonlyArray<string>, refused: ReadonlyArray<string> = []): void {
    const gone = new Set(included);
    const dropped = new Set(refused);
    this.txs = this.txs.filter((t) => {
      if (gone.has(t.accepted.id) || dropped.has(t.accepted.id)) return false;
      const spendsDropped = listOf(t.accepted.tx.body().inputs())
        .some((i) => dropped.has(i.transaction_id().to_hex()));
      if (spendsDropped) dropped.add(t.accepted.id);
      return !spendsDropped;
    });
    const state = emptyState();
    for (const tx of this.txs) apply(state, tx);
    this.view = state;
    this.total = this.txs.reduce((sum, tx) => addMeasures(sum, txMeasure(tx.accepted)), noMeasure);
  }
}

interface MutableState {
  outputs: Map<string, CML.TransactionOutput>;
  spent: Set<string>;
  stakeRegistration: Map<string, boolean>;
  withdrawn: Set<string>;
  pools: Set<string>;
  governance: {
    dreps: Map<string, DrepState>;
    hot: Map<string, MemberState>;
    proposals: Array<LiveProposal>;
    voteDelegations: Map<string, string | null>;
  };
}

const emptyState = (): MutableState => ({
  outputs: new Map(),
  spent: new Set(),
  stakeRegistration: new Map(),
  withdrawn: new Set(),
  pools: new Set(),
  governance: { dreps: new Map(), hot: new Map(), proposals: [], voteDelegations: new Map() },
});

const apply = (state: MutableState, { accepted, scriptsValid }: BlockTx): void => {
  const body = accepted.tx.body();
  const outputs = listOf(body.outputs());
  const consume = (input: CML.TransactionInput) => {
    const key = inputKey(input);
    state.outputs.delete(key);
    state.spent.add(key);
  };
  if (!scriptsValid) {
    for (const c of listOf(body.collateral_inputs())) consume(c);
    const back = body.collateral_return();
    if (back) state.outputs.set(refKey(accepted.id, outputs.length), back);
    return;
  }
  for (const i of listOf(body.inputs())) consume(i);
  outputs.forEach((o, index) => state.outputs.set(refKey(accepted.id, index), o));
  for (const [account, registered] of accepted.stakeRegistration) {
    state.stakeRegistration.set(account, registered);
  }
  for (const account of accepted.withdrawn) state.withdrawn.add(account);
  for (const pool of accepted.poolsRegistered) state.pools.add(pool);
  const g = accepted.governance;
  for (const [k, v] of g.dreps) state.governance.dreps.set(k, v);
  for (const [k, v] of g.hot) state.governance.hot.set(k, v);
  state.governance.proposals.push(...g.proposals);
  for (const [k, v] of g.voteDelegations) state.governance.voteDelegations.set(k, v);
};
