; Definitions of C# source: types (nested types qualified by their outer type), methods, constructors,
; destructors and properties (an accessor body is where a property's logic lives). Namespaces do not qualify
; names, as Java's packages do not: a file's types are found by their own names.

[(class_declaration name: (identifier) @name)
 (struct_declaration name: (identifier) @name)
 (record_declaration name: (identifier) @name)
 (interface_declaration name: (identifier) @name)
 (enum_declaration name: (identifier) @name)] @definition.class

[(method_declaration name: (identifier) @name)
 (constructor_declaration name: (identifier) @name)
 (destructor_declaration name: (identifier) @name)
 (property_declaration name: (identifier) @name)] @definition.method

; an alias (`using Json = Newtonsoft.Json;`) imports what follows its name
(using_directive !name [(identifier) (qualified_name)] @name) @reference.import
(using_directive name: (identifier) . [(identifier) (qualified_name)] @name) @reference.import

; references (the code graph): calls, constructor calls, base types
(invocation_expression function: [(identifier) @name (member_access_expression name: (identifier) @name) (generic_name (identifier) @name)]) @reference.call
(object_creation_expression type: [(identifier) @name (generic_name (identifier) @name) (qualified_name name: (identifier) @name)]) @reference.call
(base_list [(identifier) @name (generic_name (identifier) @name) (qualified_name name: (identifier) @name)]) @reference.inherits
