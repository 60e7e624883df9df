// kube's version.Info, served at /version. gitVersion names the Kubernetes API level we implement,
// so kubectl's version-skew check and charts' kubeVersion constraints judge us by it; our own
// version rides along as semver build metadata, which does not affect ordering (k3s does the same).
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KUBE_VERSION } from '../apimachinery/kube-version.js';

export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

/** Go's GOARCH names, which clients print and some parse. */
const GO_ARCH: Partial<Record<NodeJS.Architecture, string>> = { x64: 'amd64', ia32: '386' };

export function versionInfo(packageVersion: string, buildDate: Date): VersionInfo {
  const { major, minor, patch } = KUBE_VERSION;
  return {
    major,
    minor,
    gitVersion: `v${major}.${minor}.${patch}+mini-apiserver.${packageVersion}`,
    // Builds are plain tsc output with no stamping step: kube's values for an unstamped build.
    gitCommit: '',
    gitTreeState: '',
    buildDate: buildDate.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    goVersion: `node${process.versions.node}`,
    compiler: 'tsc',
    platform: `${process.platform}/${GO_ARCH[process.arch] ?? process.arch}`,
  };
}

/** This package's version and build time (the compiled module's mtime); read at start-up. */
export function serverVersion(): VersionInfo {
  const self = fileURLToPath(import.meta.url);
  // server/version.ts runs from source under vitest and from dist/server/ when built.
  for (let dir = dirname(self), i = 0; i < 4; dir = dirname(dir), i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'mini-apiserver' && pkg.version) return versionInfo(pkg.version, statSync(self).mtime);
    } catch {
      // no package.json at this level: keep climbing
    }
  }
  return versionInfo('0.0.0', statSync(self).mtime);
}
