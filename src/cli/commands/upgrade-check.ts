import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { formatFindings, upgradeCheck } from '../../versioning/upgrade-check.js';
import { EXIT_FAILURE, fail, usage } from '../run.js';

/** `svc upgrade-check`: every use, in the operator's files, of something removed at or before a release. */
export function registerUpgradeCheck(program: Command): void {
  program
    .command('upgrade-check')
    .description('report every use, in your files, of something removed at or before a release')
    .requiredOption('--to <release>', 'the release you are upgrading to (e.g. 18.0)')
    .option('--json', 'print JSON')
    .argument(
      '[paths...]',
      'files or directories to read (svc config, CI YAML, Helm values, runner config.toml, scripts)',
      ['.'],
    )
    .action(async (paths: string[], o: { to: string; json?: boolean }) => {
      if (!/^\d{1,2}\.\d{1,2}$/.test(o.to)) usage(`--to must be a release such as 17.0 (got "${o.to}")`);
      try {
        const files = await readFiles(paths);
        const findings = upgradeCheck(files, o.to);
        process.stdout.write(
          o.json ? `${JSON.stringify(findings, null, 2)}\n` : `${formatFindings(findings, o.to)}\n`,
        );
        // Non-zero when something breaks at the target release.
        if (findings.some((f) => f.breaksAtTarget)) process.exit(EXIT_FAILURE);
      } catch (err) {
        fail(err);
      }
    });
}

/** The text files under the given paths (directories recursively; .git and node_modules skipped). */
async function readFiles(paths: string[]): Promise<{ path: string; text: string }[]> {
  const out: { path: string; text: string }[] = [];
  const visit = async (p: string): Promise<void> => {
    const st = await stat(p);
    if (st.isDirectory()) {
      for (const name of (await readdir(p)).sort()) {
        if (name === '.git' || name === 'node_modules') continue;
        await visit(join(p, name));
      }
    } else if (st.isFile() && st.size <= 5 * 1024 * 1024) {
      const buf = await readFile(p);
      if (!buf.includes(0)) out.push({ path: p, text: buf.toString('utf8') });
    }
  };
  for (const p of paths) await visit(p);
  return out;
}
