/** A feature flag's gates: the instance-wide boolean, the projects it is enabled for and those it is off for. */
export interface FeatureGates {
  readonly name: string;
  readonly enabled: boolean | null;
  readonly projectIds: readonly number[];
  readonly disabledProjectIds: readonly number[];
  readonly createdAt: string;
}
