import { useEffect, useState } from 'react';
import { getJson } from './api';
import type { VersionInfo } from './types';

// One read per page load: the tier changes only with a restart, which reloads nobody's page but costs nothing
// worse than one refused request.
let paidTier: Promise<boolean> | null = null;

/**
 * Whether the instance's tier has the paid features (Premium or Ultimate: `GET /version`'s `enterprise`); null
 * until known. Pages skip the requests a Free instance would refuse rather than show their 403.
 */
export function usePaidTier(): boolean | null {
  const [paid, setPaid] = useState<boolean | null>(null);
  useEffect(() => {
    let current = true;
    paidTier ??= getJson<VersionInfo>('/api/v4/version').then(
      (v) => v.enterprise,
      () => {
        paidTier = null;
        return false;
      },
    );
    void paidTier.then((value) => {
      if (current) setPaid(value);
    });
    return () => {
      current = false;
    };
  }, []);
  return paid;
}
