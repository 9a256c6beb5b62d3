import { describe, expect, it } from 'vitest';
import type { Frame } from '../error-tracking/events.js';
import { culpritFrame, framePath, releaseCommitNames, repositoryPathOf } from './suspect-commits.js';

const frame = (f: Partial<Frame>): Frame => ({
  filename: null,
  absPath: null,
  function: null,
  module: null,
  lineNo: 1,
  colNo: null,
  inApp: true,
  context: [],
  ...f,
});

describe('releaseCommitNames', () => {
  it('reads a SHA, name@sha, name@version+sha and git describe', () => {
    const sha = '3f2a9c1d0e4b5a6978877665544332211aabbccd';
    expect(releaseCommitNames(sha)).toEqual([sha]);
    expect(releaseCommitNames('3F2A9C1')).toEqual(['3f2a9c1']);
    expect(releaseCommitNames('web@3f2a9c1')).toEqual(['3f2a9c1']);
    expect(releaseCommitNames('web@1.2.0+3f2a9c1')).toEqual(['3f2a9c1']);
    expect(releaseCommitNames('v1.2.0-4-g3f2a9c1')).toEqual(['3f2a9c1']);
  });

  it('names no commit in versions, short or all-digit names', () => {
    expect(releaseCommitNames('web@1.2.3')).toEqual([]);
    expect(releaseCommitNames('abc123')).toEqual([]);
    expect(releaseCommitNames('app@2024061')).toEqual([]);
    expect(releaseCommitNames('main')).toEqual([]);
    expect(releaseCommitNames('')).toEqual([]);
  });
});

describe('culpritFrame', () => {
  it('is the last in-app frame with a line', () => {
    const frames = [
      frame({ filename: 'a.js', lineNo: 1 }),
      frame({ filename: 'b.js', lineNo: 2 }),
      frame({ filename: 'node_modules/x.js', lineNo: 3, inApp: false }),
      frame({ filename: 'c.js', lineNo: null }),
    ];
    expect(culpritFrame(frames)?.filename).toBe('b.js');
  });

  it('takes the last frame when no frame says whether it is in-app, and none without a path', () => {
    expect(
      culpritFrame([frame({ filename: 'a.js', inApp: null }), frame({ filename: 'b.js', inApp: null })])
        ?.filename,
    ).toBe('b.js');
    expect(culpritFrame([frame({ lineNo: 4 })])).toBeNull();
    expect(culpritFrame([])).toBeNull();
  });
});

describe('framePath', () => {
  it.each([
    ['webpack:///./src/app.js', 'src/app.js'],
    ['webpack://my-app/./src/app.js', 'src/app.js'],
    ['app:///src/app.js', 'src/app.js'],
    ['https://cdn.example.com/static/js/main.js?v=3#x', 'static/js/main.js'],
    ['./lib/a.rb', 'lib/a.rb'],
    ['/app/lib/../lib/a.rb', 'app/lib/a.rb'],
    ['C:\\build\\src\\a.cs', 'C:/build/src/a.cs'],
    ['~/src/a.js', 'src/a.js'],
  ])('%s is %s', (raw, path) => {
    expect(framePath(raw)).toBe(path);
  });
});

describe('repositoryPathOf', () => {
  const files = [
    'README.md',
    'src/app.js',
    'src/util/app.js',
    'app.js',
    'lib/models/user.rb',
    'pkg/views.py',
  ];

  it('takes the longest repository path the frame path ends with', () => {
    expect(repositoryPathOf(frame({ absPath: 'webpack:///./src/util/app.js' }), files)).toBe(
      'src/util/app.js',
    );
    expect(repositoryPathOf(frame({ absPath: '/srv/releases/42/src/app.js' }), files)).toBe('src/app.js');
    expect(repositoryPathOf(frame({ absPath: '/app/app.js' }), files)).toBe('app.js');
    expect(repositoryPathOf(frame({ filename: '/app/lib/models/user.rb' }), files)).toBe(
      'lib/models/user.rb',
    );
  });

  it('matches whole path components only', () => {
    expect(
      repositoryPathOf(frame({ absPath: '/app/mysrc/app.jsx' }), ['src/app.jsx', 'c/app.jsx']),
    ).toBeNull();
    expect(repositoryPathOf(frame({ absPath: '/app/xsrc/app.jsx' }), ['src/app.jsx'])).toBeNull();
  });

  it('takes a shorter frame path only when one file ends with it', () => {
    expect(repositoryPathOf(frame({ filename: 'models/user.rb' }), files)).toBe('lib/models/user.rb');
    expect(repositoryPathOf(frame({ filename: 'util/app.js' }), files)).toBe('src/util/app.js');
    // A prefix the repository does not have is a deployment's: the file at the root.
    expect(repositoryPathOf(frame({ filename: 'x/app.js' }), files)).toBe('app.js');
    expect(
      repositoryPathOf(frame({ filename: 'models/user.rb' }), ['a/models/user.rb', 'b/models/user.rb']),
    ).toBeNull();
  });

  it('falls back to the module as a path', () => {
    expect(repositoryPathOf(frame({ filename: 'views.py', module: 'pkg.views' }), files)).toBe(
      'pkg/views.py',
    );
  });
});
