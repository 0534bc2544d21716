// docs/embedding.md and the element's attributes are generated from the state table (scripts/embedding-docs.mjs):
// both are current, and every URL parameter an embedder may set is an attribute.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { DOC_PATH, ELEMENT_PATH, attributeName, elementParameters, elementSource, embeddingDoc } from '../../scripts/embedding-docs.mjs';
import { STATE_TABLE } from '../../web/src/ui/state.js';

describe('the embedding reference', () => {
  test('docs/embedding.md is the one the state table generates (node scripts/embedding-docs.mjs)', () => {
    expect(readFileSync(DOC_PATH, 'utf8')).toBe(embeddingDoc());
  });
  test('the element\'s attribute list is the one the state table generates', () => {
    const source = readFileSync(ELEMENT_PATH, 'utf8');
    expect(source).toBe(elementSource(source));
  });
  test('every URL parameter but embed and origin (the element sets those) is an attribute, in kebab case', () => {
    const parameters = elementParameters();
    expect(Object.values(parameters).sort()).toEqual(STATE_TABLE.map((p) => p.name).filter((n) => n !== 'embed' && n !== 'origin').sort());
    expect(parameters.t).toBe('T');
    expect(parameters['d-model']).toBe('dModel');
    expect(parameters['train-d-model']).toBe('train-d-model');
    expect(attributeName('dropoutSeed')).toBe('dropout-seed');
    for (const p of STATE_TABLE) expect(p.doc, `${p.name} has no doc`).toBeTruthy();
  });
});
