import type { Command } from 'commander';
import { loadConfig } from '../../config.js';
import { filterCatalog } from '../../versioning/catalog.js';
import { ReleaseGates } from '../../versioning/gates.js';
import { parseRelease } from '../../versioning/release.js';
import { type Env, fail, usage } from '../run.js';

/** `svc deprecations`: the catalog, and which removals apply at the instance's release. */
export function registerDeprecations(program: Command, env: Env): void {
  program
    .command('deprecations')
    .description(
      'print the deprecation catalog (what is removed when, the replacement, whether svc enforces it)',
    )
    .option('--release <release>', 'only entries removed at or before this release (e.g. 17.0)')
    .option('--breaking', 'only breaking changes')
    .option('--area <area>', 'only this area (api, runners, ci, geo, ...)')
    .option('--json', 'print JSON')
    .action((o: { release?: string; breaking?: boolean; area?: string; json?: boolean }) => {
      try {
        const config = loadConfig(env);
        if (o.release !== undefined && !/^\d{1,2}\.\d{1,2}$/.test(o.release)) {
          usage(`--release must look like 17.0 (got "${o.release}")`);
        }
        const gates = new ReleaseGates(parseRelease(config.release));
        const rows = filterCatalog({ release: o.release, breaking: o.breaking, area: o.area }).map((d) => ({
          ...d,
          applies: d.removal !== null && d.removal !== 'v5' && gates.isRemoved(d.id),
        }));
        if (o.json) {
          process.stdout.write(
            `${JSON.stringify({ instance_release: config.release, deprecations: rows }, null, 2)}\n`,
          );
          return;
        }
        const table = [['id', 'removal', 'announced', 'breaking', 'applies', 'area', 'title']].concat(
          rows.map((d) => [
            d.id,
            d.removal ?? '-',
            d.announced ?? '-',
            d.breaking ? 'yes' : 'no',
            d.applies ? 'yes' : 'no',
            d.area,
            d.title,
          ]),
        );
        const widths = table[0]!.map((_, i) => Math.min(40, Math.max(...table.map((r) => r[i]!.length))));
        const line = (r: string[]) =>
          r.map((c, i) => (i < r.length - 1 ? c.slice(0, widths[i]).padEnd(widths[i]!) : c)).join('  ');
        process.stdout.write(
          `Instance release ${config.release}: ${rows.filter((r) => r.applies).length} of ${rows.length} listed removals apply.\n\n`,
        );
        process.stdout.write(`${table.map(line).join('\n')}\n`);
      } catch (err) {
        fail(err);
      }
    });
}
