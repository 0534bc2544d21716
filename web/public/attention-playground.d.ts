// Types of the <attention-playground> element (attention-playground.js beside this file; the package's
// `attention-playground/element` export). Importing the module defines the element once.

/** What getTensors() answers: the tensors the current step shows, as plain JSON-safe numbers. */
export interface PlaygroundTensors {
  step: string;
  backend: string;
  tensors: Record<string, { shape: number[]; data: Array<number | 'NaN' | 'Infinity' | '-Infinity'> }>;
  error: string | null;
}

/**
 * <attention-playground step="causal" t="8" hide="code" src="…/index.html"> — the playground page in an
 * <iframe>, in embed mode. Attributes are the page's URL parameters in kebab case (d-model → dModel,
 * t → T); `src` is the page (default: index.html beside the module); `loading="lazy"` defers the frame.
 * Events: 'ready' and 'rendered' (detail: {step}). The methods wait for 'ready'.
 */
export interface AttentionPlaygroundElement extends HTMLElement {
  /** The page URL for the current attributes. */
  readonly pageUrl: URL;
  /** Sets page state; resolves to the notices for rejected values. */
  setState(state: Record<string, unknown>): Promise<string[]>;
  getState(): Promise<Record<string, unknown>>;
  getTensors(): Promise<PlaygroundTensors>;
  next(): Promise<void>;
  previous(): Promise<void>;
}

declare global {
  interface HTMLElementTagNameMap {
    'attention-playground': AttentionPlaygroundElement;
  }
}
