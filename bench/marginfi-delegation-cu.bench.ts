// Compute units of delegation through the real marginfi v2 program (the vendored mainnet build at its mainnet id,
// in-process LiteSVM, deterministic): Delegate (opening the bank's marginfi account, then again), the keeper's
// sync (Delegate 0: marginfi accrues, the position is marked), WithdrawDelegated (part, all) and a TakeLoan that
// pulls what the bank lacks back from marginfi in the same instruction. Issue #34's budget: 300,000 CU each, one
// transaction.
import { getNow, setUnixTime } from "@cistern/sdk/testing";
import { createMarginfiWorld, DAY } from "../programs/lending/test/support/marginfi-world.ts";

const BUDGET = 300_000n;
const m = await createMarginfiWorld();
const rows: [string, bigint][] = [];
const { loan } = await m.loanSetup();
rows.push(["Delegate (opens the marginfi account)", (await m.delegate(m.owner, 800_000_000n)).computeUnits]);
rows.push(["Delegate", (await m.delegate(m.owner, 100_000_000n)).computeUnits]);
setUnixTime(m.w, getNow(m.w).unix + 5n * DAY);
rows.push(["Delegate 0 (sync: accrue and mark)", (await m.delegate(m.owner, 0n)).computeUnits]);
rows.push(["TakeLoan pulling from marginfi", (await loan(300_000_000n, true)).cu]);
rows.push(["WithdrawDelegated (part)", (await m.withdrawDelegated(m.owner, 100_000_000n)).computeUnits]);
rows.push(["WithdrawDelegated (all)", (await m.withdrawDelegated(m.owner, 0n)).computeUnits]);

console.log("| instruction (through marginfi) | compute units | budget |\n|---|---:|---:|");
for (const [name, cu] of rows) console.log(`| ${name} | ${cu} | ${BUDGET} |`);
const over = rows.filter(([, cu]) => cu > BUDGET);
if (over.length > 0) {
  console.error(`over the ${BUDGET} CU budget: ${over.map(([n]) => n).join(", ")}`);
  process.exit(1);
}
