import { getCompiledTransactionMessageDecoder } from "@solana/kit";

type MessageBytes = Parameters<ReturnType<typeof getCompiledTransactionMessageDecoder>["decode"]>[0];

/**
 * The program id of each top-level instruction of a transaction, in order, read from its message bytes: what an
 * `InstructionError: [index, ...]` names (@cistern/protocol decodeProgramFailure's `instructionProgramIds`). A
 * program id is always one of the message's static accounts (never loaded from a lookup table). Empty when the bytes
 * do not decode as a legacy or v0 message.
 */
export function getInstructionProgramIds(transaction: { messageBytes: MessageBytes }): string[] {
  try {
    const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
    if (!("instructions" in message)) return [];
    const { instructions, staticAccounts } = message as unknown as {
      instructions: { programAddressIndex: number }[];
      staticAccounts: string[];
    };
    return instructions.map((ix) => staticAccounts[ix.programAddressIndex] ?? "");
  } catch {
    return [];
  }
}
