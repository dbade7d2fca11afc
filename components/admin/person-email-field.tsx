import { InputField } from "@/components/ui/labelled-fields";

/** The email a person signs in with, in an admin form (name "email"). */
export function PersonEmailField({ id, error }: { id: string; error: string | null }) {
  return <InputField id={id} name="email" label="Email" type="email" autoComplete="off" required error={error} />;
}
