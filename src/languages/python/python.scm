; References of Python source for the code graph (its definitions come from the hand-written walker,
; src/parsing/definitions.ts): calls by the called name, base classes, imported modules.

(call function: [(identifier) @name (attribute attribute: (identifier) @name)]) @reference.call
(class_definition superclasses: (argument_list [(identifier) @name (attribute attribute: (identifier) @name)])) @reference.inherits
(import_statement name: [(dotted_name) @name (aliased_import name: (dotted_name) @name)]) @reference.import
(import_from_statement module_name: [(dotted_name) (relative_import)] @name) @reference.import
