package node

// SetHooks makes every snapshot tell read the node files it reads and
// opened the snapshot once it is open, until the returned func is called.
func SetHooks(read func(rel string), opened func(*Snapshot)) (restore func()) {
	readHook, openedHook = read, opened
	return func() { readHook, openedHook = nil, nil }
}

// SetValidationHook makes every snapshot tell parsed each validation file
// it parses, until the returned func is called.
func SetValidationHook(parsed func(rel string)) (restore func()) {
	parsingValidation = parsed
	return func() { parsingValidation = nil }
}
