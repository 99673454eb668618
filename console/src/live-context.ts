// How many changes the change stream has reported since the console opened: pages that list
// objects read again when it moves.
import { createContext } from 'preact';

export const LiveContext = createContext(0);
