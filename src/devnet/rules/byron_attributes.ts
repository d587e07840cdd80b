/**
 * The size of a Byron address's attributes as the ledger bounds it in new outputs (bootstrapAddressAttrsSize,
 * at most 64): the derivation path payload's bytes. The network magic does not count; CML keeps no other
 * attributes.
 */
import * as CML from "@dcspark/cardano-multiplatform-lib-nodejs";

export const maxBootstrapAttributesSize = 64;

export const bootstrapAttributesSize = (address: CML.Address): number =>
  address.kind() === CML.AddressKind.Byron
    ? CML.ByronAddress.from_address(address)?.content().addr_attributes().derivation_path()?.get().length ?? 0
    : 0;
