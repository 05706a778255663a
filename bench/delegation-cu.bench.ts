// Compute units of delegation to the lending venue (in-process LiteSVM, deterministic): Delegate (opening the
// bank's position, then again), WithdrawDelegated, and a TakeLoan that pulls what the bank lacks back from the
// venue in the same instruction, against the budget of 60,000 CU for that loan.
import { getNow, setUnixTime } from "@cistern/sdk/testing";
import { createDelegationWorld, DAY } from "../programs/lending/test/support/delegation-world.ts";

const PULL_BUDGET = 60_000n;
const d = await createDelegationWorld();
const rows: [string, bigint, bigint | null][] = [];
const { loan } = await d.loanSetup();
rows.push(["Delegate (opens the position)", (await d.delegate(d.owner, 800_000_000n)).computeUnits, null]);
rows.push(["Delegate", (await d.delegate(d.owner, 100_000_000n)).computeUnits, null]);
setUnixTime(d.w, getNow(d.w).unix + 5n * DAY);
let pull = 0n;
await loan(300_000_000n, true, (cu) => {
  pull = cu;
});
rows.push(["TakeLoan pulling from the venue", pull, PULL_BUDGET]);
rows.push(["WithdrawDelegated (all)", (await d.withdrawDelegated(d.owner, 0n)).computeUnits, null]);

console.log("| instruction | compute units | budget |\n|---|---:|---:|");
for (const [name, cu, budget] of rows) console.log(`| ${name} | ${cu} | ${budget ?? "—"} |`);
if (pull > PULL_BUDGET) {
  console.error(`TakeLoan pulling from the venue used ${pull} CU, over the ${PULL_BUDGET} budget`);
  process.exit(1);
}
