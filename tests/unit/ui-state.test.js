// The page's state table and its URL parsing: defaults, round trips, and what a stranger's URL can do
// (nothing but fall back to defaults with a notice).
import { describe, expect, test } from 'vitest';
import {
  CONTROL_NAMES, EDITABLE_MATRICES, STATE_TABLE, STEP_IDS, defaultState, parseState, serializeState, updateState,
} from '../../web/src/ui/state.js';

describe('state table', () => {
  test('every property has a name, a type and a default inside its range', () => {
    for (const p of STATE_TABLE) {
      expect(typeof p.name).toBe('string');
      expect(p.default).not.toBeUndefined();
      if (p.type === 'int' || p.type === 'number') {
        expect(p.default).toBeGreaterThanOrEqual(p.min);
        expect(p.default).toBeLessThanOrEqual(p.max);
      }
      if (p.type === 'enum') expect(p.values).toContain(p.default);
    }
  });

  test('an empty URL gives the defaults and no notices', () => {
    const { state, notices } = parseState('');
    expect(state).toEqual(defaultState());
    expect(notices).toEqual([]);
  });

  test('the defaults serialise to an empty query string', () => {
    expect(serializeState(defaultState())).toBe('');
  });
});

describe('URL parsing', () => {
  test('reads every kind of value', () => {
    const { state, notices } = parseState('step=causal&T=12&dModel=8&dOut=4&heads=2&causal=0&scale=false&temperature=0.5'
      + '&dropout=0.25&seed=4294967295&mask=zero&normalization=naive&sentence=the+cat+sat&hide=code,nav&lock=T,seed'
      + '&edits=0.1:0.5,2.0:-1.25&backend=js&embed=1&origin=https://course.example');
    expect(notices).toEqual([]);
    expect(state).toMatchObject({
      step: 'causal', T: 12, dModel: 8, dOut: 4, heads: 2, causal: false, scale: false, temperature: 0.5,
      dropout: 0.25, seed: 4294967295, mask: 'zero', normalization: 'naive', sentence: 'the cat sat',
      hide: ['code', 'nav'], lock: ['T', 'seed'], backend: 'js', embed: true, origin: ['https://course.example'],
      edits: [{ row: 0, col: 1, value: 0.5 }, { row: 2, col: 0, value: -1.25 }],
    });
  });

  test('step takes the number 1–12 as well as the id', () => {
    expect(parseState('step=1').state.step).toBe('framing');
    expect(parseState('step=11').state.step).toBe('cross');
    expect(parseState('step=12').state.step).toBe('learn');
    expect(parseState('step=13').state.step).toBe('framing');
    expect(STEP_IDS).toHaveLength(12);
  });

  test('round-trips: parse(serialize(state)) gives the same state', () => {
    const { state } = parseState('step=multihead&T=32&dModel=64&dOut=64&heads=8&temperature=2.35&dropout=0.95'
      + '&sentence=%C3%A9t%C3%A9+na%C3%AFf+%E2%80%94+ok&hide=code&lock=backend&edits=31.63:-99.5&origin=http://127.0.0.1:8080');
    const again = parseState(serializeState(state));
    expect(again.notices).toEqual([]);
    expect(again.state).toEqual(state);
  });

  test.each([
    ['T=0', 'T', 6], ['T=65', 'T', 6], ['T=-1', 'T', 6], ['T=1.5', 'T', 6], ['T=1e1', 'T', 6], ['T=', 'T', 6],
    ['dModel=129', 'dModel', 3], ['heads=9', 'heads', 2], ['seed=4294967296', 'seed', 123],
    ['dropout=1', 'dropout', 0.5], ['dropout=NaN', 'dropout', 0.5], ['temperature=0', 'temperature', 1],
    ['temperature=Infinity', 'temperature', 1], ['causal=yes', 'causal', true], ['mask=none', 'mask', 'neg_inf'],
    ['step=__proto__', 'step', 'framing'], ['backend=cuda', 'backend', 'auto'], ['hide=everything', 'hide', []],
    ['lock=embed', 'lock', []], ['edits=64.0:1', 'edits', []], ['edits=0.0:101', 'edits', []], ['edits=a', 'edits', []],
  ])('an out-of-range or malformed value (%s) falls back to the default with a notice', (query, name, fallback) => {
    const { state, notices } = parseState(query);
    expect(state[name]).toEqual(fallback);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(name);
  });

  test('unknown parameters are ignored with a notice', () => {
    const { state, notices } = parseState('foo=1&constructor=x&__proto__=y');
    expect(state).toEqual(defaultState());
    expect(notices).toHaveLength(3);
    expect(notices[0]).toMatch(/Unknown URL parameter "foo"/);
    expect(Object.getPrototypeOf(state)).toBe(Object.prototype);
  });

  test('a repeated parameter keeps its first value', () => {
    const { state, notices } = parseState('T=4&T=9');
    expect(state.T).toBe(4);
    expect(notices).toHaveLength(1);
  });

  test('markup and script in a sentence are refused, never passed on', () => {
    for (const hostile of ['<img src=x onerror=alert(1)>', '</title><script>alert(1)</script>', 'a\u0000b', 'x'.repeat(201)]) {
      const { state, notices } = parseState(new URLSearchParams({ sentence: hostile }));
      expect(state.sentence).toBe(defaultState().sentence);
      expect(notices).toHaveLength(1);
    }
  });

  test('quotes and ampersands are plain text in a sentence', () => {
    const { state, notices } = parseState(new URLSearchParams({ sentence: 'Tom & Jerry said "hi" \'there\'' }));
    expect(notices).toEqual([]);
    expect(state.sentence).toBe('Tom & Jerry said "hi" \'there\'');
  });

  test('notices quote the rejected value as a short one-line string', () => {
    const { notices } = parseState(new URLSearchParams({ T: `9\n${'x'.repeat(100)}` }));
    expect(notices[0]).not.toContain('\n');
    expect(notices[0]).toContain('…');
  });

  test('origins must be plain http(s) origins', () => {
    for (const bad of ['javascript:alert(1)', 'https://a.example/path', 'file:///etc', 'https://a.example,data:x']) {
      const { state, notices } = parseState(new URLSearchParams({ origin: bad }));
      expect(state.origin).toEqual([]);
      expect(notices).toHaveLength(1);
    }
  });
});

describe('edits of the projection weights', () => {
  test('a matrix prefix names the weight; no prefix is x, as in older links', () => {
    const { state, notices } = parseState('edits=Wq.1.0:-0.5,0.1:2.5,crossWv.63.63:100,Wk.2.1:0.25,Wv.0.0:1,crossWq.0.1:-1,crossWk.3.0:0.125,x.1.1:3');
    expect(notices).toEqual([]);
    // Canonical order: matrices in EDITABLE_MATRICES order, then row, then column.
    expect(state.edits).toEqual([
      { matrix: 'x', row: 0, col: 1, value: 2.5 },
      { matrix: 'x', row: 1, col: 1, value: 3 },
      { matrix: 'Wq', row: 1, col: 0, value: -0.5 },
      { matrix: 'Wk', row: 2, col: 1, value: 0.25 },
      { matrix: 'Wv', row: 0, col: 0, value: 1 },
      { matrix: 'crossWq', row: 0, col: 1, value: -1 },
      { matrix: 'crossWk', row: 3, col: 0, value: 0.125 },
      { matrix: 'crossWv', row: 63, col: 63, value: 100 },
    ]);
    expect(EDITABLE_MATRICES.map((m) => m.name)).toEqual(['x', 'Wq', 'Wk', 'Wv', 'crossWq', 'crossWk', 'crossWv']);
  });

  test('round-trips, with x written without a prefix', () => {
    const { state } = parseState('edits=Wk.2.1:0.25,0.1:2.5,x.3.0:-1');
    const query = serializeState(state);
    expect(new URLSearchParams(query).get('edits')).toBe('0.1:2.5,3.0:-1,Wk.2.1:0.25');
    expect(parseState(query)).toEqual({ state, notices: [] });
  });

  test('the same cell typed twice keeps the last value; the same indices in two matrices are two cells', () => {
    expect(parseState('edits=Wq.0.0:1,Wq.0.0:2,Wk.0.0:3,0.0:4').state.edits).toEqual([
      { matrix: 'x', row: 0, col: 0, value: 4 },
      { matrix: 'Wq', row: 0, col: 0, value: 2 },
      { matrix: 'Wk', row: 0, col: 0, value: 3 },
    ]);
  });

  test.each([
    'Wq.128.0:1', 'Wq.0.128:1', 'x.64.0:1', 'Wq.1000.0:1', 'Wq.0.0:101', 'Wq.0.0:-100.5', 'Wq.0.0:1e2', 'Wq.0.0:NaN', 'Wq.0.0:Infinity',
    'Wo.0.0:1', 'wq.0.0:1', 'W_query.0.0:1', '__proto__.0.0:1', 'constructor.0.0:1', 'toString.0.0:1', 'hasOwnProperty.0.0:1',
    'Wq..0.0:1', 'Wq.0.0.0:1', '.0.0:1', 'Wq.0:1', 'Wq.-1.0:1', 'Wq.0.0:', 'Wq.0.0:0x10', 'Wq.0.0:1,', 'Wq 0.0:1',
    'Wq.0.0:1;alert(1)', '<b>Wq</b>.0.0:1', 'Wq.0.0:1,Wk.0.0:<script>', `Wq.0.0:1${',Wk.0.0:1'.repeat(64)}`,
  ])('a hostile or malformed weight edit (%s) is rejected as a whole, with a notice', (edits) => {
    const { state, notices } = parseState(new URLSearchParams({ edits }));
    expect(state.edits).toEqual([]);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain('edits'); // quoted as text: the page shows notices with textContent
  });

  test('typed weight edits from the postMessage API are checked the same way', () => {
    const ok = updateState(defaultState(), { edits: [{ matrix: 'Wv', row: 1, col: 0, value: 0.5 }, { row: 0, col: 0, value: 2 }] });
    expect(ok.notices).toEqual([]);
    expect(ok.state.edits).toEqual([{ matrix: 'x', row: 0, col: 0, value: 2 }, { matrix: 'Wv', row: 1, col: 0, value: 0.5 }]);
    for (const bad of [[{ matrix: 'Wz', row: 0, col: 0, value: 1 }], [{ matrix: 7, row: 0, col: 0, value: 1 }],
      [{ matrix: 'Wq,x', row: 0, col: 0, value: 1 }], [{ matrix: 'Wq', row: 0, col: 0, value: Infinity }], [{ matrix: 'Wq', row: 999, col: 0, value: 1 }]]) {
      const { state, notices } = updateState(defaultState(), { edits: bad });
      expect(state.edits).toEqual([]);
      expect(notices).toHaveLength(1);
    }
  });

  test('lock=edits locks the weights as well as x', () => {
    const locked = parseState('lock=edits').state;
    const { state, notices } = updateState(locked, { edits: [{ matrix: 'Wq', row: 0, col: 0, value: 1 }] });
    expect(state.edits).toEqual([]);
    expect(notices).toHaveLength(1);
  });
});

describe('state updates', () => {
  test('typed values are checked against the same table', () => {
    const { state, notices } = updateState(defaultState(), { T: 10, causal: false, temperature: 0.1 + 0.2, hide: ['code'] });
    expect(notices).toEqual([]);
    expect(state).toMatchObject({ T: 10, causal: false, temperature: 0.3, hide: ['code'] });
  });

  test('invalid values and unknown names leave the state as it was, with notices', () => {
    const before = defaultState();
    const { state, notices } = updateState(before, { T: 1000, dModel: '3; drop', nope: 1, sentence: '<b>bold</b>', edits: [{ row: 'a' }] });
    expect(state.T).toBe(6);
    expect(state.dModel).toBe(3);
    expect(state.sentence).toBe(before.sentence);
    expect(state.edits).toEqual([]);
    expect(notices).toHaveLength(5);
  });

  test('locked controls keep their value unless forced', () => {
    const locked = { ...defaultState(), lock: ['T'] };
    expect(updateState(locked, { T: 9 }).state.T).toBe(6);
    expect(updateState(locked, { T: 9 }, { force: true }).state.T).toBe(9);
  });

  test('a non-object update is refused', () => {
    expect(updateState(defaultState(), null).notices).toHaveLength(1);
    expect(updateState(defaultState(), 'T=3').notices).toHaveLength(1);
  });

  test('every control is lockable', () => {
    expect(CONTROL_NAMES).toContain('sentence');
    expect(parseState(`lock=${CONTROL_NAMES.join(',')}`).state.lock).toEqual(CONTROL_NAMES);
  });
});

describe('the head picker (head: 0 = all heads)', () => {
  test('a URL picks one head and the query string keeps it; all heads is the default and stays out of it', () => {
    const { state, notices } = parseState('step=multihead&dOut=8&heads=4&head=3');
    expect(notices).toEqual([]);
    expect(state.head).toBe(3);
    expect(serializeState(state)).toContain('head=3');
    expect(parseState(serializeState(state)).state.head).toBe(3);
    expect(parseState('step=multihead').state.head).toBe(0);
    expect(serializeState(parseState('step=multihead').state)).not.toMatch(/(^|&)head=/);
  });

  test('a head beyond the heads goes back to all heads with a notice, from a URL or when heads moves', () => {
    const parsed = parseState('step=multihead&dOut=4&heads=2&head=4');
    expect(parsed.state.head).toBe(0);
    expect(parsed.notices).toEqual(['There is no head 4 with heads=2; showing all heads.']);
    const picked = parseState('step=multihead&dOut=8&heads=4&head=4').state;
    const moved = updateState(picked, { heads: 2 });
    expect(moved.state.head).toBe(0);
    expect(moved.adjusted).toEqual(['There is no head 4 with heads=2; showing all heads.']);
    expect(updateState(picked, { head: 2 }).state.head).toBe(2);
  });

  test('head is a control an instructor may lock', () => {
    expect(CONTROL_NAMES).toContain('head');
    expect(parseState('step=multihead&lock=head').state.lock).toEqual(['head']);
  });
});
