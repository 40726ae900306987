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
