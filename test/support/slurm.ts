/**
 * Slurm for tests: `ensureSlurm()` is true when a controller answers `sinfo` with a usable node
 * (scripts/setup-slurm.sh starts a single-node cluster). With LOCFIX_REQUIRE_SLURM=1 (CI) a missing cluster
 * fails loudly; otherwise the suite is skipped with a message saying how to get one.
 */
import { execFileSync } from 'node:child_process';

function slurmStatus(): { ok: boolean; reason?: string } {
  try {
    const states = execFileSync('sinfo', ['-h', '-N', '-o', '%t'], { encoding: 'utf8', timeout: 20_000 }).trim().split('\n');
    if (states.some((s) => /^(idle|mix|alloc)/.test(s.trim()))) return { ok: true };
    return { ok: false, reason: `no usable node (sinfo: ${states.join(', ') || 'none'})` };
  } catch (err) {
    return { ok: false, reason: (err as Error).message.split('\n')[0] };
  }
}

export function ensureSlurm(suite = 'Slurm tests'): boolean {
  const status = slurmStatus();
  if (status.ok) return true;
  if (process.env.LOCFIX_REQUIRE_SLURM === '1') throw new Error(`${suite}: Slurm is required (LOCFIX_REQUIRE_SLURM=1) but not usable: ${status.reason}`);
  console.warn(`[skip] ${suite}: ${status.reason}. Run scripts/setup-slurm.sh as root (or set LOCFIX_REQUIRE_SLURM=1 to fail instead).`);
  return false;
}
