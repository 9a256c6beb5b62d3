import type { SelectQueryBuilder } from 'kysely';
import type { PageRequest } from '../paging.js';
import { readCount } from './dialect.js';

/**
 * One page of a filtered query and the filter's total: `rows` adds the selection and order to `base`,
 * and the page's limit and offset are applied here.
 */
export async function fetchPage<DB, TB extends keyof DB, O>(
  base: SelectQueryBuilder<DB, TB, object>,
  rows: (q: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, O>,
  page: PageRequest,
): Promise<{ rows: O[]; total: number }> {
  const [items, count] = await Promise.all([
    rows(base)
      .limit(page.perPage)
      .offset((page.page - 1) * page.perPage)
      .execute(),
    base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst(),
  ]);
  return { rows: items, total: readCount((count as { n?: string | number } | undefined)?.n) };
}
