; Definitions of Java source: types (nested types qualified by their outer type), methods and constructors.

[(class_declaration name: (identifier) @name)
 (interface_declaration name: (identifier) @name)
 (enum_declaration name: (identifier) @name)
 (record_declaration name: (identifier) @name)
 (annotation_type_declaration name: (identifier) @name)] @definition.class

[(method_declaration name: (identifier) @name)
 (constructor_declaration name: (identifier) @name)
 (compact_constructor_declaration name: (identifier) @name)] @definition.method

(import_declaration (_) @name) @reference.import

; references (the code graph): method calls and constructor calls, superclass and interfaces
(method_invocation name: (identifier) @name) @reference.call
(object_creation_expression type: [(type_identifier) @name (generic_type (type_identifier) @name)]) @reference.call
(superclass [(type_identifier) @name (generic_type (type_identifier) @name)]) @reference.inherits
(super_interfaces (type_list [(type_identifier) @name (generic_type (type_identifier) @name)])) @reference.inherits
