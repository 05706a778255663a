import { PROTOCOL_FEE_BPS } from "@cistern/protocol";
import {
  type ConfigAccount,
  decodeConfigAccount,
  findConfigPda,
  getInitializeConfigInstruction,
  getUpdateConfigInstruction,
} from "@cistern/sdk";
import type { Address, KeyPairSigner } from "@solana/kit";
import { BOOTSTRAP_ERROR, BootstrapError } from "./bootstrap-error.ts";
import type { ChainClient } from "./chain-client.ts";

/** What {@link ensureProgramConfig} did. */
export type ConfigAction = "initialized" | "updated" | "unchanged";

/** Reads and decodes the Config account (null when absent). */
export async function fetchProgramConfig(
  chain: ChainClient,
  programAddress: Address,
): Promise<ConfigAccount | null> {
  const [configAddress] = await findConfigPda(programAddress);
  const account = await chain.fetchAccount(configAddress);
  return account ? decodeConfigAccount(account.data) : null;
}

/**
 * Initializes the program config (admin, oracle, fee treasury, 2000 bps) when absent; when present with a
 * different oracle or treasury than the data dir's keys, rotates them with UpdateConfig (admin-signed).
 */
export async function ensureProgramConfig(input: {
  chain: ChainClient;
  programAddress: Address;
  admin: KeyPairSigner;
  oracle: Address;
  treasury: Address;
}): Promise<{ action: ConfigAction; config: ConfigAccount }> {
  const { chain, programAddress, admin, oracle, treasury } = input;
  const current = await fetchProgramConfig(chain, programAddress);
  let action: ConfigAction = "unchanged";
  if (!current) {
    await chain.send(
      "InitializeConfig",
      [
        await getInitializeConfigInstruction({
          programAddress,
          admin,
          oracle,
          treasury,
          protocolFeeBps: PROTOCOL_FEE_BPS,
        }),
      ],
      admin,
    );
    action = "initialized";
  } else {
    if (current.admin !== admin.address) {
      throw new BootstrapError(
        BOOTSTRAP_ERROR.CONFIG_ADMIN_MISMATCH,
        `config admin is ${current.admin}, not this data dir's admin ${admin.address}; cannot rotate keys`,
      );
    }
    const oracleChanged = current.oracle !== oracle;
    const treasuryChanged = current.treasury !== treasury;
    if (oracleChanged || treasuryChanged) {
      await chain.send(
        "UpdateConfig",
        [
          await getUpdateConfigInstruction({
            programAddress,
            admin,
            ...(oracleChanged ? { oracle } : {}),
            ...(treasuryChanged ? { treasury } : {}),
          }),
        ],
        admin,
      );
      action = "updated";
    }
  }
  const config = await fetchProgramConfig(chain, programAddress);
  if (!config)
    throw new BootstrapError(
      BOOTSTRAP_ERROR.TRANSACTION_FAILED,
      "config account missing after InitializeConfig",
    );
  return { action, config };
}
