import { describe, expect, it } from 'vitest';
import { type ContainerSpecOptions, containerSpec } from '../../sandbox/container-spec.js';

const options: ContainerSpecOptions = {
  image: 'tally-sandbox:abc',
  name: 'tally-default-k1',
  instance: 'default',
  kernelId: 'k1',
  sessionId: 'slack:T1:C1:1.2',
  workHostPath: '/data/workspaces/default/k1/work',
  inputsHostPath: '/data/workspaces/default/k1/inputs',
  outboxHostPath: '/data/workspaces/default/k1/outbox',
  limits: { memoryMb: 768, cpus: 0.5, pidsLimit: 64, tmpMb: 32 },
};
const spec = containerSpec(options);

describe('containerSpec', () => {
  it('isolates the kernel from the network, the host and privileges', () => {
    expect(spec.NetworkDisabled).toBe(true);
    expect(spec.HostConfig).toMatchObject({
      NetworkMode: 'none',
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Privileged: false,
      Binds: [
        '/data/workspaces/default/k1/work:/workspace:rw',
        '/data/workspaces/default/k1/inputs:/inputs:ro',
        '/data/workspaces/default/k1/outbox:/outbox:rw',
      ],
    });
    expect(spec.User).toBe('10001:10001');
    expect(spec.HostConfig?.LogConfig).toEqual({ Type: 'none', Config: {} });
    expect(
      spec.Env?.every((entry) =>
        /^(TALLY_PRELOAD|TALLY_PRELOAD_LATER|TMPDIR|TALLY_WORKSPACE|TALLY_OUTBOX|PYTHONMALLOC|GLIBC_TUNABLES)=/.test(
          entry,
        ),
      ),
    ).toBe(true);
  });

  it('preloads the analysis stack only when asked (warm-pool kernels)', () => {
    expect(spec.Env).toContain('TALLY_PRELOAD_LATER=numpy,pandas,matplotlib.pyplot');
    expect(containerSpec({ ...options, preload: true }).Env).toContain('TALLY_PRELOAD=numpy,pandas,matplotlib.pyplot');
  });

  it('applies the configured limits', () => {
    expect(spec.HostConfig).toMatchObject({
      Memory: 768 * 1024 * 1024,
      MemorySwap: 768 * 1024 * 1024,
      NanoCpus: 500_000_000,
      PidsLimit: 64,
      Tmpfs: { '/tmp': 'rw,nosuid,nodev,noexec,size=32m,mode=1777' },
    });
    expect(spec.HostConfig?.Ulimits).toContainEqual({
      Name: 'fsize',
      Soft: 4096 * 1024 * 1024,
      Hard: 4096 * 1024 * 1024,
    });
    const small = containerSpec({ ...options, limits: { ...options.limits, fileSizeMb: 16 } });
    expect(small.HostConfig?.Ulimits).toContainEqual({ Name: 'fsize', Soft: 16 * 1024 * 1024, Hard: 16 * 1024 * 1024 });
  });

  it("runs under the runtime asked for; under gVisor processes are capped inside, the sentry's threads outside", () => {
    expect(spec.HostConfig?.Runtime).toBeUndefined();
    expect(spec.HostConfig?.Ulimits?.map((limit) => limit.Name)).not.toContain('nproc');
    const gvisor = containerSpec({ ...options, runtime: 'runsc' }).HostConfig;
    expect(gvisor?.Runtime).toBe('runsc');
    expect(gvisor?.PidsLimit).toBe(1024);
    expect(gvisor?.Ulimits).toContainEqual({ Name: 'nproc', Soft: 64, Hard: 64 });
    expect(containerSpec({ ...options, runtime: 'runc' }).HostConfig).toMatchObject({ Runtime: 'runc', PidsLimit: 64 });
  });

  it('labels the container so orphans can be found', () => {
    expect(spec.Labels).toEqual({
      'tally.managed': 'true',
      'tally.instance': 'default',
      'tally.kernel': 'k1',
      'tally.session': 'slack:T1:C1:1.2',
    });
  });
});
