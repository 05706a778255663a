import { i80f48, type MarginfiBankConfig } from "./instructions.ts";

const pct = (p: bigint) => i80f48(p, 100n);

/**
 * The demo marginfi banks' configuration, close to marginfi's own mainnet USDC and SOL banks: collateral tier,
 * 90% / 80% asset weight at origination, liabilities weighted 125%, a two-slope curve (plateau at the optimal
 * utilization, then up to the max rate at 100%), a 5% group fee on interest, oracle prices usable for 60 s.
 */
export const MARGINFI_DEMO_BANKS: Record<string, { config: MarginfiBankConfig; decimals: number }> = {
  USDC: {
    decimals: 6,
    config: {
      assetWeightInit: pct(90n),
      assetWeightMaint: pct(95n),
      liabilityWeightInit: pct(125n),
      liabilityWeightMaint: pct(110n),
      depositLimit: 50_000_000n * 10n ** 6n,
      interestRate: {
        optimalUtilizationRate: pct(90n),
        plateauInterestRate: pct(12n),
        maxInterestRate: pct(150n),
        insuranceFeeFixedApr: 0n,
        insuranceIrFee: 0n,
        protocolFixedFeeApr: 0n,
        protocolIrFee: pct(5n),
        protocolOriginationFee: 0n,
      },
      operationalState: 1,
      borrowLimit: 40_000_000n * 10n ** 6n,
      riskTier: 0,
      assetTag: 0,
      totalAssetValueInitLimit: 0n,
      oracleMaxAge: 60,
    },
  },
  SOL: {
    decimals: 9,
    config: {
      assetWeightInit: pct(80n),
      assetWeightMaint: pct(90n),
      liabilityWeightInit: pct(125n),
      liabilityWeightMaint: pct(110n),
      depositLimit: 500_000n * 10n ** 9n,
      interestRate: {
        optimalUtilizationRate: pct(80n),
        plateauInterestRate: pct(7n),
        maxInterestRate: pct(125n),
        insuranceFeeFixedApr: 0n,
        insuranceIrFee: 0n,
        protocolFixedFeeApr: 0n,
        protocolIrFee: pct(5n),
        protocolOriginationFee: 0n,
      },
      operationalState: 1,
      borrowLimit: 400_000n * 10n ** 9n,
      riskTier: 0,
      assetTag: 1,
      totalAssetValueInitLimit: 0n,
      oracleMaxAge: 60,
    },
  },
};
