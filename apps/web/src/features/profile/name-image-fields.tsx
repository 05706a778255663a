/** The two fields of a display name and an image URL (pool metadata, profile), with their messages. */
export function NameImageFields({
  id,
  labels,
  name,
  image,
  errors,
  onName,
  onImage,
}: {
  id: string;
  labels: { name: string; image: string };
  name: string;
  image: string;
  errors: { name?: string; image?: string };
  onName(value: string): void;
  onImage(value: string): void;
}) {
  return (
    <div className="pg-grid-form">
      <div className={errors.name ? "pg-field has-error" : "pg-field"}>
        <label htmlFor={`${id}-name`}>{labels.name}</label>
        <input
          id={`${id}-name`}
          value={name}
          maxLength={32}
          aria-invalid={errors.name !== undefined}
          onChange={(e) => onName(e.target.value)}
        />
        {errors.name ? <small className="error-text">{errors.name}</small> : null}
      </div>
      <div className={errors.image ? "pg-field has-error" : "pg-field"}>
        <label htmlFor={`${id}-image`}>{labels.image}</label>
        <input
          id={`${id}-image`}
          type="url"
          placeholder="https://"
          value={image}
          aria-invalid={errors.image !== undefined}
          onChange={(e) => onImage(e.target.value)}
        />
        {errors.image ? (
          <small className="error-text" data-testid="error-image">
            {errors.image}
          </small>
        ) : null}
      </div>
    </div>
  );
}
