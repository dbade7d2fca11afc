import { createContext, useContext } from "react";

/**
 * A context whose provider must wrap every reader: its hook throws, naming the hook and the provider,
 * where a component reads it outside the provider (a wiring mistake, not a state to render).
 */
export function createRequiredContext<T>(hookName: string, providerName: string) {
  const Context = createContext<T | null>(null);
  function useRequiredContext(): T {
    const value = useContext(Context);
    if (!value) throw new Error(`${hookName} needs <${providerName}>`);
    return value;
  }
  return { Provider: Context.Provider, useValue: useRequiredContext };
}
