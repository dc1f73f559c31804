// The page's elements: finding one by id, making one with its attributes and text.

export const $ = (id) => document.getElementById(id);

export function element(tag, attributes = {}, text = "") {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text) node.textContent = text;
  return node;
}
