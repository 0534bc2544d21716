// Changing the page by what differs: a node whose text, attribute or hidden flag is already right is left
// alone, so it keeps its style and layout from the last frame, and a list of children is put in order by
// moving, patching or adding only the nodes that differ.

export function element(tag, attributes = {}, text = null) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== null) node.textContent = text;
  return node;
}

// Sets what differs and nothing else: an unchanged node keeps its style and layout from the last frame.
export function setText(node, text) {
  if (node.textContent === text) return;
  // A lone text node takes the new text in place (textContent would replace it with a new one).
  if (node.childNodes.length === 1 && node.firstChild.nodeType === 3) node.firstChild.data = text;
  else node.textContent = text;
}
export function setAttribute(node, name, value) {
  if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}
export function setHidden(node, hidden) {
  if (node.hidden !== hidden) node.hidden = hidden;
}

/** Nodes whose whole state is their markup (no listener, no property set from JS): syncChildren may patch them. */
const PATCHABLE = new WeakSet();

/** Marks `node` as markup only, so that a later node built the same way may be patched into it; returns it. */
export function markPatchable(node) {
  PATCHABLE.add(node);
  return node;
}

// The node on the page that took a patchable node's text and attributes in its place.
const PATCHED_INTO = new WeakMap();
/** The node that shows `node` on the page: the one syncChildren patched it into, or `node` itself. */
export function placedNode(node) {
  return PATCHED_INTO.get(node) ?? node;
}

/**
 * Puts `nodes` into `parent` in order, touching only what differs: a node already in place stays, and
 * so does one equal to its replacement (isEqualNode: same tags, attributes and text), which suits
 * the small tables and lists rebuilt on each repaint; they carry no listeners.
 */
export function syncChildren(parent, nodes) {
  nodes.forEach((node, i) => {
    const current = parent.childNodes[i];
    if (current === node) return;
    // An old node built the same way (same tags, attribute names and children) takes the new one's text and
    // attribute values in place: the flow picture's shapes change with T, and replacing the whole picture
    // restyled and laid it out anew on every change. Only markup-only nodes (markPatchable): a tensor's
    // figure carries listeners bound to its tensor, which a patch would leave pointing at the old one.
    if (current && PATCHABLE.has(current) && PATCHABLE.has(node) && !nodes.includes(current) && !node.isConnected && sameShape(current, node)) {
      patchNode(current, node);
      PATCHED_INTO.set(node, current);
      return;
    }
    parent.insertBefore(node, current ?? null);
  });
  while (parent.childNodes.length > nodes.length) parent.lastChild.remove();
}

function sameShape(a, b) {
  if (a.nodeType !== b.nodeType || a.nodeName !== b.nodeName) return false;
  if (a.nodeType === 1) {
    if (a.attributes.length !== b.attributes.length) return false;
    for (const { name } of b.attributes) if (!a.hasAttribute(name)) return false;
  }
  const aChildren = a.childNodes;
  const bChildren = b.childNodes;
  if (aChildren.length !== bChildren.length) return false;
  for (let i = 0; i < aChildren.length; i++) if (!sameShape(aChildren[i], bChildren[i])) return false;
  return true;
}

function patchNode(a, b) {
  if (a.nodeType === 3) {
    if (a.data !== b.data) a.data = b.data;
    return;
  }
  if (a.nodeType === 1) for (const { name, value } of b.attributes) if (a.getAttribute(name) !== value) a.setAttribute(name, value);
  for (let i = 0; i < a.childNodes.length; i++) patchNode(a.childNodes[i], b.childNodes[i]);
}
