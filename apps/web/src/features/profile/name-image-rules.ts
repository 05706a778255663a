import { checkImageUrl } from "@cistern/protocol";

/** Checks a display name (pool or profile) and an image URL; returns field messages (empty when valid). */
export function checkNameAndImage(name: string, image: string): { name?: string; image?: string } {
  const errors: { name?: string; image?: string } = {};
  if (name.trim().length > 32) errors.name = "Name must be at most 32 characters.";
  const rule = checkImageUrl(image);
  if (!rule.ok) errors.image = "Images hosted on twimg are not supported; use another URL.";
  else if (rule.needsContentTypeCheck) {
    try {
      const url = new URL(rule.url);
      if (url.protocol !== "https:" && url.protocol !== "http:")
        errors.image = "Image URL must start with https://.";
    } catch {
      errors.image = "Image URL is not a valid URL.";
    }
  }
  return errors;
}
